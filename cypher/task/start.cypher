// Opens a task (idempotent on its id). Parameters: $row (Task fields). Returns: task (map).
MERGE (t:Task {id: $row.id})
ON CREATE SET t.namespace = $row.namespace, t.agent = $row.agent, t.title = $row.title,
  t.status = $row.status, t.started_at = $row.started_at, t.ended_at = $row.ended_at, t.outcome = $row.outcome
RETURN t {.*} AS task
