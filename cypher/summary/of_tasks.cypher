// The active summaries of tasks (at most one each: summary/attach supersedes the earlier ones).
// Parameters: $ids (task ids), $namespace. Returns: task_id, memory (map of the Memory, as memory/get returns it).
UNWIND $ids AS id
MATCH (m:Summary)-[:FROM_TASK]->(t:Task {namespace: $namespace, id: id})
WHERE m.namespace = $namespace AND m.status = 'active'
WITH t, m ORDER BY m.created_at DESC, m.id
WITH t, collect(m)[0] AS m
RETURN t.id AS task_id, m {.*, embedding: null} AS memory
