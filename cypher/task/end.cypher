// Ends a task and queues it for reflection (the batched worker takes queued tasks; an explicit reflection
// marks it done). A task ended before keeps its end and its outcome (``ended_before`` and ``outcome_before`` say
// what it had: the service refuses another outcome). Parameters: $id, $namespace, $outcome, $at.
// Returns: task (map), ended_before (bool), outcome_before.
MATCH (t:Task {namespace: $namespace, id: $id})
WITH t, t.status = 'ended' AS ended_before, t.outcome AS outcome_before
SET t.status = 'ended', t.ended_at = coalesce(t.ended_at, $at),
    t.outcome = CASE WHEN ended_before THEN t.outcome ELSE coalesce($outcome, t.outcome) END,
    t.reflection_status = coalesce(t.reflection_status, 'pending'),
    t.reflection_queued_at = coalesce(t.reflection_queued_at, $at)
RETURN t {.*} AS task, ended_before, outcome_before
