// Appends turns to a task's log. A turn id already used by another task of the namespace is not linked.
// Parameters: $rows (Turn fields), $namespace. Returns: id.
UNWIND $rows AS row
MATCH (t:Task {namespace: $namespace, id: row.task_id})
MERGE (u:Turn {namespace: $namespace, id: row.id})
ON CREATE SET u.task_id = row.task_id, u.seq = row.seq, u.role = row.role,
  u.speaker = row.speaker, u.content = row.content, u.tool_calls = row.tool_calls, u.at = row.at
WITH t, u WHERE u.task_id = t.id
MERGE (t)-[:HAS_TURN]->(u)
RETURN u.id AS id
