// One page of a namespace's memories for an analysis export (graphmem.analysis), in id order, each with its
// signed fields (verified by the reader) and its outgoing edges to nodes of the same namespace.
// Parameters: $namespace, $statuses (list), $after (last id of the previous page, '' first), $limit.
// Returns: memory (map), edges (list of {type, label, target, weight, gap_s}) per row.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.id > $after AND m.status IN $statuses
WITH m ORDER BY m.id LIMIT $limit
RETURN m {.id, .namespace, .kind, .content, .title, .status, .confidence, .importance, .source, .sources, .tags,
          .access_count, .reinforced_count, .metadata_json, .signature, .signature_key, .created_at, .valid_from, .valid_until,
          .expires_at, .last_accessed_at, .writer, .trust} AS memory,
       [(m)-[r]->(x) WHERE x.namespace = $namespace
          AND (NOT x:Memory OR x.status IN $statuses)
        | {type: type(r), label: labels(x)[0], target: coalesce(x.id, x.name), weight: coalesce(r.weight, 1.0),
           gap_s: r.gap_s}] AS edges
