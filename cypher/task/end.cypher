// Ends a task and queues it for reflection (the batched worker takes queued tasks; an explicit reflection
// marks it done). Parameters: $id, $namespace, $outcome, $at. Returns: task (map).
MATCH (t:Task {namespace: $namespace, id: $id})
SET t.status = 'ended', t.ended_at = coalesce(t.ended_at, $at), t.outcome = coalesce($outcome, t.outcome),
    t.reflection_status = coalesce(t.reflection_status, 'pending'),
    t.reflection_queued_at = coalesce(t.reflection_queued_at, $at)
RETURN t {.*} AS task
