// One task with its turns in order. Parameters: $id, $namespace.
// Returns: task (map), turns (list of maps).
MATCH (t:Task {namespace: $namespace, id: $id})
OPTIONAL MATCH (t)-[:HAS_TURN]->(u:Turn)
WITH t, u ORDER BY u.seq
RETURN t {.*} AS task, [x IN collect(u) | x {.*}] AS turns
