// Appends turns to a task's log. A turn id already used by another task of the namespace is not linked.
// Lowers the task's trust to $trust (the logging token's; null: no token) when that is lower: what reflection
// writes from the task carries the lowest trust of those who wrote into it.
// Parameters: $rows (Turn fields), $namespace, $trust. Returns: id.
UNWIND $rows AS row
MATCH (t:Task {namespace: $namespace, id: row.task_id})
MERGE (u:Turn {namespace: $namespace, id: row.id})
ON CREATE SET u.task_id = row.task_id, u.seq = row.seq, u.role = row.role,
  u.speaker = row.speaker, u.content = row.content, u.tool_calls = row.tool_calls, u.at = row.at
WITH t, u WHERE u.task_id = t.id
MERGE (t)-[:HAS_TURN]->(u)
SET t.trust = CASE WHEN $trust IS NULL OR $trust >= coalesce(t.trust, 1.0) THEN t.trust ELSE $trust END
RETURN u.id AS id
