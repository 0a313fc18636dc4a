// Provenance: memory -[:FROM_TASK]-> task of the same namespace.
// Parameters: $rows ({memory_id, namespace, task_id, at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MATCH (t:Task {namespace: row.namespace, id: row.task_id})
MERGE (m)-[r:FROM_TASK]->(t)
ON CREATE SET r.created_at = row.at
RETURN count(*) AS links
