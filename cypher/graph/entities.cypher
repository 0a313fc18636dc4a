// Entities of a namespace with how many memories are about them, most mentioned first.
// Parameters: $namespace, $limit. Returns: name, kind, memories.
MATCH (e:Entity) WHERE e.namespace = $namespace
RETURN e.name AS name, e.kind AS kind, COUNT { (e)<-[:ABOUT]-(:Memory) } AS memories
ORDER BY memories DESC, name
LIMIT $limit
