// One hop of relation expansion from a frontier of nodes (by element id) over the given edge types, to
// memories that pass the filters, entities and (provenance) turns of the searched namespaces.
// Parameters: $vary.frontier (element ids), $types, $type_weights (map type -> weight), $fanout (edges per node: the
// strongest by type weight * edge weight, ties by element id), and the common filters.
// Filters: $vary.namespaces, $vary.statuses, $vary.kinds (list or null), $now, $vary.as_of, $vary.after,
// $vary.before (datetimes or null),
// $vary.min_trust (a memory trusted less, its null trust counting 1, is neither a seed nor walked to).
// Those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that one
// cached plan serves every search (graphmem/retrieval/vary.py, in_map).
// Returns ONE row: nodes, per frontier node with edges a map {key (element id), id (graphmem id or entity name),
// degree, and one list per edge field: out (the edge leaves this node), type, weight, to_key (element id of the
// other end), to_id, to_memory (the other end is a Memory), to_degree (the other end's degree: which entities and
// turns may walk on)}.
// One row of columns, not a row per edge: the driver's cost per record, and per value converted, dominated.
// The edges are sorted before the far end's filters are checked, so that LIMIT stops after reading the few it keeps
// (rows keep the sort's order through the WHERE; see retrieval/search).
UNWIND $vary.frontier AS key
MATCH (a) WHERE elementId(a) = key
CALL (a) {
  MATCH (a)-[r]-(m)
  WHERE type(r) IN $types
  WITH r, m ORDER BY coalesce($type_weights[type(r)], 0.0) * coalesce(r.weight, 1.0) DESC, elementId(r)
  WITH r, m WHERE m.namespace IN $vary.namespaces
    AND (m:Entity OR m:Turn OR (m:Memory AND m.status IN $vary.statuses
      AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
      AND (m.expires_at IS NULL OR m.expires_at > $now)
      AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                              AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
      AND ($vary.after IS NULL OR m.created_at >= $vary.after)
      AND ($vary.before IS NULL OR m.created_at < $vary.before)
      AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)))
  RETURN r, m
  LIMIT $fanout
}
WITH a, collect(startNode(r) = a) AS out, collect(type(r)) AS types, collect(coalesce(r.weight, 1.0)) AS weights,
     collect(elementId(m)) AS to_keys, collect(coalesce(m.id, m.name)) AS to_ids, collect(m:Memory) AS to_memory,
     collect(COUNT { (m)--() }) AS to_degree
RETURN collect({key: elementId(a), id: coalesce(a.id, a.name), degree: COUNT { (a)--() }, out: out, type: types,
                weight: weights, to_key: to_keys, to_id: to_ids, to_memory: to_memory, to_degree: to_degree}) AS nodes
