// Provenance: memory -[:DERIVED_FROM]-> memory or turn of the same namespace.
// Parameters: $rows ({memory_id, namespace, target_id, at}). Returns: links (count).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
CALL (row) {
  MATCH (t:Memory {namespace: row.namespace, id: row.target_id}) RETURN t
  UNION
  MATCH (t:Turn {namespace: row.namespace, id: row.target_id}) RETURN t
}
MERGE (m)-[r:DERIVED_FROM]->(t)
ON CREATE SET r.created_at = datetime(row.at)
RETURN count(*) AS links
