// One page of a namespace's memories for an analysis export (graphmem.analysis), in id order, each with its
// signed fields (verified by the reader), what an analyst reads beside them (updated_at, reinforced_by,
// superseded_by, metadata as its stored JSON text, summary: whether it is a task summary, :Summary) and its outgoing
// edges to nodes of the same namespace.
// Parameters: $namespace, $statuses (list), $after (last id of the previous page, '' first), $limit.
// Returns: memory (map), edges (list of {type, label, target, weight, gap_s}) per row.
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.id > $after AND m.status IN $statuses
WITH m ORDER BY m.id LIMIT $limit
RETURN m {.id, .namespace, .kind, .content, .title, .status, .confidence, .importance, .source, .sources, .tags,
          .access_count, .reinforced_count, .signature, .signature_key, .created_at, .valid_from, .valid_until,
          .expires_at, .last_accessed_at, .writer, .trust, .updated_at, .reinforced_by, .superseded_by,
          .metadata_json, summary: m:Summary} AS memory,
       [(m)-[r]->(x) WHERE x.namespace = $namespace
          AND (NOT x:Memory OR x.status IN $statuses)
        | {type: type(r), label: labels(x)[0], target: coalesce(x.id, x.name), weight: coalesce(r.weight, 1.0),
           gap_s: r.gap_s}] AS edges
