// Gives claimed tasks back to the queue (the worker stops before reflecting them).
// Parameters: $ids, $namespaces_by_id (map id -> namespace). Returns: id.
UNWIND $ids AS id
MATCH (t:Task {id: id}) WHERE t.namespace = $namespaces_by_id[id] AND t.reflection_status = 'running'
SET t.reflection_status = 'pending'
RETURN t.id AS id
