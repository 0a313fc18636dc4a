// Gives back every task still claimed by $worker (after a store error the worker cannot tell which of its claims
// committed, or which it still holds; between cycles it holds none). A task claimed by another worker since is
// left alone. Parameters: $worker. Returns: namespace, id.
MATCH (t:Task)
WHERE t.reflection_status = 'running' AND t.reflection_worker = $worker
SET t.reflection_status = 'pending'
RETURN t.namespace AS namespace, t.id AS id
