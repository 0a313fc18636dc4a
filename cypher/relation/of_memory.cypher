// Edges touching a memory (both directions). Parameters: $id, $namespace.
// Returns: source_id, target_id, type, weight, confidence.
MATCH (m:Memory {id: $id})-[r]-(o) WHERE m.namespace = $namespace
RETURN startNode(r).id AS source_id, endNode(r).id AS target_id, type(r) AS type,
       r.weight AS weight, r.confidence AS confidence
ORDER BY type, source_id, target_id
