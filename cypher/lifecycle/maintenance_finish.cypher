// Records a run of a job this worker holds and frees its lease: when it ran, how long, what it counted (or its
// error) and when it is due next. A lease taken over meanwhile is left to its new holder (recorded 0).
// Parameters: $namespace, $job, $worker, $at, $ms, $counts_json (null after a failure), $error (null after a
// success), $next_due. Returns: recorded (count).
MATCH (j:Maintenance {namespace: $namespace, job: $job})
WHERE j.claimed_by = $worker
SET j.last_run_at = $at, j.last_ms = $ms, j.next_due = $next_due,
    j.runs = coalesce(j.runs, 0) + 1,
    j.failures = coalesce(j.failures, 0) + CASE WHEN $error IS NULL THEN 0 ELSE 1 END,
    j.last_error = $error,
    j.last_ok_at = CASE WHEN $error IS NULL THEN $at ELSE j.last_ok_at END,
    j.last_counts_json = coalesce($counts_json, j.last_counts_json)
REMOVE j.claimed_by, j.claimed_at, j.lease_until
RETURN count(j) AS recorded
