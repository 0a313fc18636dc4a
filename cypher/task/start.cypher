// Opens a task (idempotent on its (namespace, id): another namespace's task of the same id is another task).
// Parameters: $row (Task fields). Returns: task (map).
MERGE (t:Task {namespace: $row.namespace, id: $row.id})
ON CREATE SET t.agent = $row.agent, t.title = $row.title,
  t.status = $row.status, t.started_at = $row.started_at, t.ended_at = $row.ended_at, t.outcome = $row.outcome,
  t.writer = $row.writer, t.trust = $row.trust
RETURN t {.*} AS task
