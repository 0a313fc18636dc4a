// Test helper: overwrites one memory's embedding. Parameters: $id, $embedding. Returns: n.
MATCH (m:Memory {id: $id}) SET m.embedding = $embedding RETURN count(m) AS n
