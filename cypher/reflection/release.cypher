// Gives claimed tasks back to the queue (the worker stops before reflecting them).
// Parameters: $rows ({namespace, id}), $worker. Returns: id.
UNWIND $rows AS row
MATCH (t:Task {namespace: row.namespace, id: row.id})
WHERE t.reflection_status = 'running' AND t.reflection_worker = $worker
SET t.reflection_status = 'pending'
RETURN t.id AS id
