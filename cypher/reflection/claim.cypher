// Second step of a claim (after reflection/claim_lock, same transaction, locks held): the tasks that are still
// queued, or still claimed by a dead worker, now that any concurrent claim has committed, are this worker's.
// Parameters: $rows ({namespace, id}), $now, $stale_before, $worker. Returns: namespace, id (the claimed ones).
UNWIND $rows AS row
MATCH (t:Task {namespace: row.namespace, id: row.id})
WITH t, (t.reflection_status = 'pending'
         OR (t.reflection_status = 'running' AND t.reflection_claimed_at < $stale_before)) AS free
REMOVE t.reflection_lock
WITH t, free WHERE free
SET t.reflection_status = 'running', t.reflection_claimed_at = $now, t.reflection_worker = $worker
RETURN t.namespace AS namespace, t.id AS id
