// The neighbourhood of one memory up to $hops edges away (any type unless $types is given), within its
// namespace, for a graph view. Parameters: $id, $namespace, $hops (1-3), $types (list or null), $limit.
// Returns: nodes (list of {key, id, label, kind, content, name, status}), edges (list of {source, target, type,
// weight}) where source/target are node keys.
MATCH (start:Memory {id: $id}) WHERE start.namespace = $namespace
CALL (start) {
  MATCH p = (start)-[*1..3]-(n)
  WHERE length(p) <= $hops AND all(x IN nodes(p) WHERE x.namespace = $namespace)
    AND ($types IS NULL OR all(r IN relationships(p) WHERE type(r) IN $types))
  RETURN p LIMIT $limit
}
WITH start, collect(p) AS paths
WITH start, [x IN paths | nodes(x)] AS ns, [x IN paths | relationships(x)] AS rs
WITH start, reduce(acc = [start], l IN ns | acc + l) AS allNodes, reduce(acc = [], l IN rs | acc + l) AS allRels
UNWIND allNodes AS n
WITH allRels, collect(DISTINCT n) AS nodes
UNWIND (CASE WHEN size(allRels) = 0 THEN [null] ELSE allRels END) AS r
WITH nodes, collect(DISTINCT r) AS rels
RETURN [n IN nodes | {key: elementId(n), id: coalesce(n.id, n.name), label: labels(n)[0], kind: n.kind,
                      content: coalesce(n.content, n.title, n.name), status: n.status}] AS nodes,
       [r IN rels | {source: elementId(startNode(r)), target: elementId(endNode(r)), type: type(r),
                     weight: coalesce(r.weight, 1.0)}] AS edges
