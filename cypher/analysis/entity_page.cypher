// One page of a namespace's entities for an analysis export (graphmem.analysis), in name order, with how many
// memories of the exported statuses are ABOUT each.
// Parameters: $namespace, $statuses (list), $after (last name of the previous page, '' first), $limit.
// Returns: name, degree per row.
MATCH (e:Entity)
WHERE e.namespace = $namespace AND e.name > $after
WITH e ORDER BY e.name LIMIT $limit
RETURN e.name AS name, COUNT { (m:Memory)-[:ABOUT]->(e) WHERE m.status IN $statuses } AS degree
