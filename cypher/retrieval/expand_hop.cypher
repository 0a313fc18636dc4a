// One hop of relation expansion from a frontier of nodes (by element id) over the given edge types, to
// memories that pass the filters, entities and (provenance) turns of the searched namespaces.
// Parameters: $frontier (element ids), $types, $fanout (edges per node), and the common filters.
// Filters: $namespaces, $statuses, $kinds (list or null), $now, $as_of, $after, $before (datetimes or null).
// Returns: src, dst (element ids of the edge ends), type, weight, src_id, dst_id (graphmem ids or entity
// names), from_key, to_key (element ids of the hop), to_label, from_degree.
UNWIND $frontier AS key
MATCH (a) WHERE elementId(a) = key
CALL (a) {
  MATCH (a)-[r]-(m)
  WHERE type(r) IN $types AND m.namespace IN $namespaces
    AND (m:Entity OR m:Turn OR (m:Memory AND m.status IN $statuses
      AND ($kinds IS NULL OR m.kind IN $kinds)
      AND (m.expires_at IS NULL OR m.expires_at > $now)
      AND ($as_of IS NULL OR (m.created_at <= $as_of AND coalesce(m.valid_from, m.created_at) <= $as_of
                              AND (m.valid_until IS NULL OR m.valid_until > $as_of)))
      AND ($after IS NULL OR m.created_at >= $after)
      AND ($before IS NULL OR m.created_at < $before)))
  RETURN r, m
  LIMIT $fanout
}
RETURN elementId(startNode(r)) AS src, elementId(endNode(r)) AS dst, type(r) AS type,
       coalesce(r.weight, 1.0) AS weight,
       coalesce(startNode(r).id, startNode(r).name) AS src_id, coalesce(endNode(r).id, endNode(r).name) AS dst_id,
       elementId(a) AS from_key, elementId(m) AS to_key, labels(m)[0] AS to_label, COUNT { (a)--() } AS from_degree
