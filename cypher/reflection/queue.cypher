// Puts an ended task in the reflection queue (unless it is reflected already or queued).
// Parameters: $id, $namespace. Returns: status.
MATCH (t:Task {id: $id}) WHERE t.namespace = $namespace
SET t.reflection_status = CASE WHEN t.reflection_status IN ['done', 'running'] THEN t.reflection_status
                               ELSE 'pending' END,
    t.reflection_queued_at = coalesce(t.reflection_queued_at, t.ended_at)
RETURN t.reflection_status AS status
