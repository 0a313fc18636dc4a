// One page of a namespace's entities for an analysis export (graphmem.analysis), in name order, with their
// properties and how many memories of the exported statuses are ABOUT each.
// Parameters: $namespace, $statuses (list), $after (last name of the previous page, '' first), $limit.
// Returns: namespace, name, kind, created_at, degree per row.
MATCH (e:Entity)
WHERE e.namespace = $namespace AND e.name > $after
WITH e ORDER BY e.name LIMIT $limit
RETURN e.namespace AS namespace, e.name AS name, e.kind AS kind, e.created_at AS created_at,
       COUNT { (m:Memory)-[:ABOUT]->(e) WHERE m.status IN $statuses } AS degree
