// Typed edges between memories touching any of the given memories of a namespace (DataLoader batch); none of a
// quarantined memory (nothing links to one: an edge made before an edit quarantined it is not shown).
// Parameters: $ids, $namespace. Returns: id (the memory asked about), source_id, target_id, type, weight,
// confidence.
UNWIND $ids AS id
MATCH (m:Memory {id: id})-[r]-(o:Memory)
WHERE m.namespace = $namespace AND m.status <> 'quarantined' AND o.status <> 'quarantined'
RETURN id, startNode(r).id AS source_id, endNode(r).id AS target_id, type(r) AS type,
       r.weight AS weight, r.confidence AS confidence
ORDER BY id, type, source_id, target_id
