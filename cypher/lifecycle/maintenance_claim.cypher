// Second step of a claim (after lifecycle/maintenance_lock, same transaction, locks held): the jobs still due and
// unleased, now that any concurrent claim has committed, are leased to this worker until $lease_until.
// Parameters: $rows ({namespace, job}), $now, $worker, $lease_until. Returns: namespace, job (the claimed ones).
UNWIND $rows AS row
MATCH (j:Maintenance {namespace: row.namespace, job: row.job})
WITH j, (j.next_due <= $now AND (j.lease_until IS NULL OR j.lease_until <= $now)) AS free
REMOVE j._lock
WITH j, free WHERE free
SET j.claimed_by = $worker, j.claimed_at = $now, j.lease_until = $lease_until
RETURN j.namespace AS namespace, j.job AS job
