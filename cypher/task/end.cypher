// Ends a task and queues it for reflection (the batched worker takes queued tasks; an explicit reflection
// marks it done). A task ended before keeps its end and its outcome (``ended_before`` and ``outcome_before`` say
// what it had: the service refuses another outcome). A task reflected while open, with turns logged after that
// reflection, is queued again (its stored report is not replayed then: ``reflection.service.turns_since``).
// Parameters: $id, $namespace, $outcome, $at.
// Returns: task (map), ended_before (bool), outcome_before.
MATCH (t:Task {namespace: $namespace, id: $id})
WITH t, t.status = 'ended' AS ended_before, t.outcome AS outcome_before
WITH t, ended_before, outcome_before,
     NOT ended_before AND t.reflection_status = 'done'
       AND EXISTS { (t)-[:HAS_TURN]->(u:Turn) WHERE u.at > t.reflected_at } AS stale
SET t.status = 'ended', t.ended_at = coalesce(t.ended_at, $at),
    t.outcome = CASE WHEN ended_before THEN t.outcome ELSE coalesce($outcome, t.outcome) END,
    t.reflection_status = CASE WHEN stale THEN 'pending' ELSE coalesce(t.reflection_status, 'pending') END,
    t.reflection_queued_at = CASE WHEN stale THEN $at ELSE coalesce(t.reflection_queued_at, $at) END
RETURN t {.*} AS task, ended_before, outcome_before
