// First step of a claim (lifecycle/maintenance_claim follows in the same transaction): picks up to $limit of the
// given jobs that look due and unleased (a lease that ran out is free: its worker died) and takes their write
// locks (SET), waiting for a concurrent claimer to commit. What it read before the lock may be stale: the next
// step re-reads under the lock. It picks at random among the 4 x $limit most overdue, so workers polling at once
// mostly take different jobs, and locks in (namespace, job) order: no deadlock between two claimers.
// Parameters: $rows ({namespace, job}), $now, $limit, $token (this claim's). Returns: namespace, job.
UNWIND $rows AS row
MATCH (j:Maintenance {namespace: row.namespace, job: row.job})
WHERE j.next_due <= $now AND (j.lease_until IS NULL OR j.lease_until <= $now)
WITH j ORDER BY j.next_due LIMIT 4 * $limit
WITH j ORDER BY rand() LIMIT $limit
WITH j ORDER BY j.namespace, j.job
SET j._lock = $token
RETURN j.namespace AS namespace, j.job AS job
