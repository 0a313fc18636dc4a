// Replaces memories' embeddings. Parameters: $rows ({id, embedding}). Returns: n.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m.embedding = row.embedding
RETURN count(m) AS n
