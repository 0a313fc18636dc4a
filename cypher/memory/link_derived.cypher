// Provenance: memory -[:DERIVED_FROM]-> memory or turn of the same namespace.
// Parameters: $rows ({memory_id, target_id, at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
MATCH (t {id: row.target_id}) WHERE (t:Memory OR t:Turn) AND t.namespace = m.namespace
MERGE (m)-[r:DERIVED_FROM]->(t)
ON CREATE SET r.created_at = row.at
RETURN count(*) AS links
