// Removes soft-deleted memories for good (an explicit, separate step).
// Parameters: $ids, $namespace. Returns: purged (count).
MATCH (m:Memory) WHERE m.id IN $ids AND m.namespace = $namespace AND m.status = 'deleted'
DETACH DELETE m
RETURN count(m) AS purged
