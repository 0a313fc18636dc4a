// One hop of relation expansion from a frontier of nodes (by element id) over the given edge types, to
// memories that pass the filters, entities and (provenance) turns of the searched namespaces.
// Parameters: $frontier (element ids), $types, $fanout (edges per node), and the common filters.
// Filters: $namespaces, $statuses, $kinds (list or null), $now, $as_of, $after, $before (datetimes or null).
// Returns ONE row: edges, a list of maps {src, dst (element ids of the edge ends), type, weight, src_id, dst_id
// (graphmem ids or entity names), from_key, to_key (element ids of the hop), to_label, from_degree}.
// One row, not one per edge: the driver's cost per record dominated the whole statement.
UNWIND $frontier AS key
MATCH (a) WHERE elementId(a) = key
WITH a, COUNT { (a)--() } AS degree
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
RETURN collect({src: elementId(startNode(r)), dst: elementId(endNode(r)), type: type(r),
                weight: coalesce(r.weight, 1.0),
                src_id: coalesce(startNode(r).id, startNode(r).name),
                dst_id: coalesce(endNode(r).id, endNode(r).name),
                from_key: elementId(a), to_key: elementId(m), to_label: labels(m)[0], from_degree: degree}) AS edges
