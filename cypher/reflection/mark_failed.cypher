// Records a failed reflection (in its own transaction; the reflection itself wrote nothing). The task goes
// back to pending for a retry, or to failed after $max_attempts attempts. With $worker (the batched worker, after
// an error the service did not record), only while the task is still claimed by that worker.
// Parameters: $id, $namespace, $at, $error, $max_attempts, $worker (or null). Returns: status, attempts.
MATCH (t:Task {namespace: $namespace, id: $id})
WHERE $worker IS NULL OR (t.reflection_status = 'running' AND t.reflection_worker = $worker)
WITH t, coalesce(t.reflection_attempts, 0) + 1 AS attempts
SET t.reflection_attempts = attempts, t.reflection_error = $error, t.reflection_failed_at = $at,
    t.reflection_status = CASE WHEN attempts >= $max_attempts THEN 'failed' ELSE 'pending' END
RETURN t.reflection_status AS status, attempts
