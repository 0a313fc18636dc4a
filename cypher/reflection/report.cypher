// A task's reflection state. Parameters: $id, $namespace.
// Returns: status, report (JSON text or null), error, attempts, reflected_at.
MATCH (t:Task {namespace: $namespace, id: $id})
RETURN t.reflection_status AS status, t.reflection_json AS report, t.reflection_error AS error,
       coalesce(t.reflection_attempts, 0) AS attempts, t.reflected_at AS reflected_at
