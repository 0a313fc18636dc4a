// Appends turns to a task's log. Parameters: $rows (Turn fields), $namespace. Returns: id.
UNWIND $rows AS row
MATCH (t:Task {id: row.task_id}) WHERE t.namespace = $namespace
MERGE (u:Turn {id: row.id})
ON CREATE SET u.namespace = $namespace, u.task_id = row.task_id, u.seq = row.seq, u.role = row.role,
  u.speaker = row.speaker, u.content = row.content, u.tool_calls = row.tool_calls, u.at = row.at
MERGE (t)-[:HAS_TURN]->(u)
RETURN u.id AS id
