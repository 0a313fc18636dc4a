// Claims up to $limit queued tasks for one worker (a claim older than $stale_before is taken over: its worker
// died). Parameters: $limit, $now, $stale_before, $worker, $namespaces (list, or null for all).
// Returns: namespace, id.
MATCH (t:Task)
WHERE ($namespaces IS NULL OR t.namespace IN $namespaces)
  AND (t.reflection_status = 'pending'
       OR (t.reflection_status = 'running' AND t.reflection_claimed_at < $stale_before))
WITH t ORDER BY coalesce(t.reflection_queued_at, t.ended_at) LIMIT $limit
SET t.reflection_status = 'running', t.reflection_claimed_at = $now, t.reflection_worker = $worker
RETURN t.namespace AS namespace, t.id AS id
