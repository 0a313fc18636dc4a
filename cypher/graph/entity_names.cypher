// One page of a namespace's entity names, in name order (``graph.rebuild`` merges those not in normal form).
// Parameters: $namespace, $after (last name of the previous page, '' first), $limit. Returns: name.
MATCH (e:Entity)
WHERE e.namespace = $namespace AND e.name > $after
RETURN e.name AS name
ORDER BY name
LIMIT $limit
