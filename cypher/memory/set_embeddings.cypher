// Replaces memories' embeddings, stored as 32-bit floats as in memory/create.
// Parameters: $rows ({namespace, id, embedding}). Returns: n.
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
RETURN count(m) AS n
