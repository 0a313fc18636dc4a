// Extends the lease of a job this worker still holds (while it runs). A lease taken over (it ran out and another
// worker claimed the job) is not this worker's any more: nothing changes, renewed is 0.
// Parameters: $namespace, $job, $worker, $lease_until. Returns: renewed (count).
MATCH (j:Maintenance {namespace: $namespace, job: $job})
WHERE j.claimed_by = $worker
SET j.lease_until = $lease_until
RETURN count(j) AS renewed
