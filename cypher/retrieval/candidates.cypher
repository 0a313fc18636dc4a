// The candidates of a search, with their embeddings (for the formula's similarity).
// Parameters: $ids. Returns: memory (map, no embedding), embedding.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m {.*, embedding: null} AS memory, m.embedding AS embedding
