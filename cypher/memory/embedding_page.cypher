// A page of memories (all namespaces and statuses) to re-embed, in (id, namespace) order: ids are unique per
// namespace only, so the cursor holds both (the id range seeks the memory_id_lookup index in order).
// Parameters: $after_id, $after_namespace ('' and '' for the first page), $limit. Returns: namespace, id, content.
MATCH (m:Memory) WHERE m.id >= $after_id AND (m.id > $after_id OR m.namespace > $after_namespace)
RETURN m.namespace AS namespace, m.id AS id, m.content AS content
ORDER BY m.id, m.namespace
LIMIT $limit
