// Memories derived from several tasks of a namespace (DataLoader batch), newest first.
// Parameters: $ids, $namespace. Returns: task_id, memory (map, no embedding).
UNWIND $ids AS id
MATCH (m:Memory)-[:FROM_TASK]->(t:Task {id: id}) WHERE t.namespace = $namespace AND m.status <> 'deleted'
RETURN id AS task_id, m {.*, embedding: null} AS memory
ORDER BY task_id, m.created_at DESC
