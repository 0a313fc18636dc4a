// Title: Hubs: the entities most memories are about
// Shows: entities by their ABOUT edges. Search does not walk on from an entity with more than 100 edges.
// Parameters: $namespace, $limit.
// Returns: entity, kind, memories (rows).
MATCH (e:Entity {namespace: $namespace})<-[:ABOUT]-(m:Memory)
RETURN e.name AS entity, e.kind AS kind, count(m) AS memories
ORDER BY memories DESC LIMIT toInteger($limit)
