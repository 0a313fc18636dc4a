// The turns of several tasks of a namespace, in order (DataLoader batch).
// Parameters: $ids, $namespace. Returns: task_id, turn (map).
UNWIND $ids AS id
MATCH (t:Task {id: id})-[:HAS_TURN]->(u:Turn) WHERE t.namespace = $namespace
RETURN id AS task_id, u {.*} AS turn
ORDER BY task_id, u.seq
