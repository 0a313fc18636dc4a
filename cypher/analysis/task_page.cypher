// One page of a namespace's tasks for an analysis export (graphmem.analysis), in id order, each with its turns
// (the HAS_TURN edges) and their task_id. Times are returned as stored (DateTime values, as memories' are).
// Parameters: $namespace, $after (last id of the previous page, '' first), $limit.
// Returns: task (map), turns (list of maps) per row.
MATCH (t:Task)
WHERE t.namespace = $namespace AND t.id > $after
WITH t ORDER BY t.id LIMIT $limit
RETURN t {.id, .agent, .title, .status, .outcome, .reflection_status, .started_at, .ended_at} AS task,
       [(t)-[:HAS_TURN]->(u:Turn) WHERE u.namespace = $namespace
        | u {.id, .task_id, .seq, .role, .speaker, .content, .at}] AS turns
