// Gives a claimed task back to the queue (the worker stops before reflecting it).
// Parameters: $id, $namespace. Returns: status.
MATCH (t:Task {id: $id}) WHERE t.namespace = $namespace AND t.reflection_status = 'running'
SET t.reflection_status = 'pending'
RETURN t.reflection_status AS status
