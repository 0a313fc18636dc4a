// Test helper: the stored embedding of one memory. Parameters: $id. Returns: embedding.
MATCH (m:Memory {id: $id})
RETURN m.embedding AS embedding
