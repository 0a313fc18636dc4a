// One page of memories (any status, every namespace or one) with their signed fields and signatures, in id order
// after a cursor: what `graphmem integrity check` verifies and `graphmem integrity resign` re-signs.
// Parameters: $namespace (null: all), $after_ns, $after_id (the cursor; '' to start), $limit.
// Returns: memory (map).
MATCH (m:Memory)
WHERE ($namespace IS NULL OR m.namespace = $namespace)
  AND (m.namespace > $after_ns OR (m.namespace = $after_ns AND m.id > $after_id))
WITH m ORDER BY m.namespace, m.id LIMIT $limit
RETURN m {.id, .namespace, .kind, .content, .status, .confidence, .importance, .source, .sources, .tags,
          .created_at, .valid_from, .valid_until, .expires_at, .writer, .trust, .metadata_json, .title,
          .signature, .signature_key} AS memory
