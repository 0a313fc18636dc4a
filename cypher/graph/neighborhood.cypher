// The neighbourhood of one memory up to $hops edges away (any type unless $types is given), within its
// namespace, for a graph view. Memories are shown as memory/get shows them: deleted ones and expired working
// memory never (neither the start, which then gives no row, nor on a path). Nothing links to a quarantined memory:
// none is on a path, and a quarantined start (memory/get shows it) is shown alone, no walk from it (OPTIONAL: a
// start with no path keeps its row). Cypher takes no parameter as the
// bound of a variable-length pattern, so each $hops has its own branch with a literal bound (only the one of
// $hops runs): a 1-hop view does not walk the 3-hop paths. The filters are inside the pattern's WHERE, so the
// expansion prunes at a node of another namespace or a hidden memory instead of walking through it.
// Parameters: $id, $namespace, $hops (1-3), $types (list or null), $limit.
// Returns: nodes (list of {key, id, label, kind, content, name, status}), edges (list of {source, target, type,
// weight}) where source/target are node keys, truncated (true when $limit paths were read: there may be more).
MATCH (start:Memory {namespace: $namespace, id: $id})
WHERE start.status <> 'deleted' AND (start.expires_at IS NULL OR start.expires_at > datetime())
OPTIONAL CALL (start) {
  CALL (start) {
    WITH start WHERE $hops = 1
    MATCH p = (start)-[*1..1]-(n)
    WHERE all(x IN nodes(p) WHERE x.namespace = $namespace
              AND (NOT x:Memory OR (NOT x.status IN ['deleted', 'quarantined'] AND (x.expires_at IS NULL OR x.expires_at > datetime()))))
      AND ($types IS NULL OR all(r IN relationships(p) WHERE type(r) IN $types))
    RETURN p
    UNION ALL
    WITH start WHERE $hops = 2
    MATCH p = (start)-[*1..2]-(n)
    WHERE all(x IN nodes(p) WHERE x.namespace = $namespace
              AND (NOT x:Memory OR (NOT x.status IN ['deleted', 'quarantined'] AND (x.expires_at IS NULL OR x.expires_at > datetime()))))
      AND ($types IS NULL OR all(r IN relationships(p) WHERE type(r) IN $types))
    RETURN p
    UNION ALL
    WITH start WHERE $hops >= 3
    MATCH p = (start)-[*1..3]-(n)
    WHERE all(x IN nodes(p) WHERE x.namespace = $namespace
              AND (NOT x:Memory OR (NOT x.status IN ['deleted', 'quarantined'] AND (x.expires_at IS NULL OR x.expires_at > datetime()))))
      AND ($types IS NULL OR all(r IN relationships(p) WHERE type(r) IN $types))
    RETURN p
  }
  RETURN p LIMIT $limit
}
WITH start, collect(p) AS paths
WITH start, size(paths) >= $limit AS truncated, [x IN paths | nodes(x)] AS ns, [x IN paths | relationships(x)] AS rs
WITH start, truncated, reduce(acc = [start], l IN ns | acc + l) AS allNodes,
     reduce(acc = [], l IN rs | acc + l) AS allRels
UNWIND allNodes AS n
WITH truncated, allRels, collect(DISTINCT n) AS nodes
UNWIND (CASE WHEN size(allRels) = 0 THEN [null] ELSE allRels END) AS r
WITH truncated, nodes, collect(DISTINCT r) AS rels
RETURN truncated, [n IN nodes | {key: elementId(n), id: coalesce(n.id, n.name), label: labels(n)[0], kind: n.kind,
                      content: coalesce(n.content, n.title, n.name), status: n.status,
                      signed: CASE WHEN n:Memory THEN n {.id, .namespace, .kind, .content, .status, .confidence, .importance, .source, .sources, .tags, .created_at, .valid_from, .valid_until, .expires_at, .writer, .trust, .metadata_json, .title, .signature, .signature_key} END}] AS nodes,
       [r IN rels | {source: elementId(startNode(r)), target: elementId(endNode(r)), type: type(r),
                     weight: coalesce(r.weight, 1.0)}] AS edges
