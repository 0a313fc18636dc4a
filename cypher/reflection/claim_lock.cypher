// First step of a claim: picks up to $limit queued tasks (a claim older than $stale_before is taken over: its
// worker died) and takes their write locks (SET), waiting for a concurrent claimer to commit. What it read
// before the lock may be stale: reflection/claim re-reads under the lock, in the same transaction. It picks at
// random among the 4 x $limit oldest, so two workers polling at once mostly take different tasks (the same oldest
// ones for both left the second with nothing), and locks them in (namespace, id) order: no deadlock between two.
// Parameters: $limit, $stale_before, $token (this claim's), $namespaces (list, or null for all).
// Returns: namespace, id.
MATCH (t:Task)
WHERE ($namespaces IS NULL OR t.namespace IN $namespaces)
  AND (t.reflection_status = 'pending'
       OR (t.reflection_status = 'running' AND t.reflection_claimed_at < $stale_before))
WITH t ORDER BY coalesce(t.reflection_queued_at, t.ended_at) LIMIT 4 * $limit
WITH t ORDER BY rand() LIMIT $limit
WITH t ORDER BY t.namespace, t.id
SET t.reflection_lock = $token
RETURN t.namespace AS namespace, t.id AS id
