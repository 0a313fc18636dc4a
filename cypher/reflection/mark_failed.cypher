// Records a failed reflection (in its own transaction; the reflection itself wrote nothing). The task goes
// back to pending for a retry, or to failed after $max_attempts attempts.
// Parameters: $id, $namespace, $at, $error, $max_attempts. Returns: status, attempts.
MATCH (t:Task {id: $id}) WHERE t.namespace = $namespace
WITH t, coalesce(t.reflection_attempts, 0) + 1 AS attempts
SET t.reflection_attempts = attempts, t.reflection_error = $error, t.reflection_failed_at = $at,
    t.reflection_status = CASE WHEN attempts >= $max_attempts THEN 'failed' ELSE 'pending' END
RETURN t.reflection_status AS status, attempts
