// Provenance: memory -[:FROM_TASK]-> task.
// Parameters: $rows ({memory_id, task_id, at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
MATCH (t:Task {id: row.task_id}) WHERE t.namespace = m.namespace
MERGE (m)-[r:FROM_TASK]->(t)
ON CREATE SET r.created_at = row.at
RETURN count(*) AS links
