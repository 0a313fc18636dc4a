// Tests: the edges of one type between memories of a namespace. Parameters: $namespace, $type.
// Returns: source, target (memory ids).
MATCH (a:Memory)-[r]->(b:Memory)
WHERE a.namespace = $namespace AND b.namespace = $namespace AND type(r) = $type
RETURN a.id AS source, b.id AS target
