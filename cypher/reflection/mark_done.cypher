// Marks a task reflected and keeps the reflection's report (JSON) for replays.
// Parameters: $id, $namespace, $at, $report (JSON text). Returns: task (map).
MATCH (t:Task {namespace: $namespace, id: $id})
SET t.reflected_at = $at, t.reflection_status = 'done', t.reflection_error = null, t.reflection_json = $report
RETURN t {.*} AS task
