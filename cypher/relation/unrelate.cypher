// Removes one typed edge. Parameters: $source_id, $target_id, $type, $namespace.
// Returns: removed (count).
MATCH (a:Memory {id: $source_id})-[r:$($type)]->(b:Memory {id: $target_id})
WHERE a.namespace = $namespace AND b.namespace = $namespace
DELETE r
RETURN count(r) AS removed
