// Test helper: queued (pending) tasks of one namespace. Parameters: $namespace. Returns: id.
MATCH (t:Task) WHERE t.namespace = $namespace AND t.reflection_status = 'pending'
RETURN t.id AS id ORDER BY id
