// Provenance: memory -[:FROM_TASK]-> task of the same namespace.
// Parameters: $rows ({memory_id, namespace, task_id, at}). Returns: links (count).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MATCH (t:Task {namespace: row.namespace, id: row.task_id})
MERGE (m)-[r:FROM_TASK]->(t)
ON CREATE SET r.created_at = datetime(row.at)
RETURN count(*) AS links
