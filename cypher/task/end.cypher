// Ends a task. Parameters: $id, $namespace, $outcome, $at. Returns: task (map).
MATCH (t:Task {id: $id}) WHERE t.namespace = $namespace
SET t.status = 'ended', t.ended_at = coalesce(t.ended_at, $at), t.outcome = coalesce($outcome, t.outcome)
RETURN t {.*} AS task
