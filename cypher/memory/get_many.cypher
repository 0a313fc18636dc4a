// Memories by id within namespaces (expired working memory is never returned).
// Parameters: $ids (list), $namespaces (list), $statuses (list), $now. Returns: memory (map, no embedding), one row each.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
WHERE m.namespace IN $namespaces AND m.status IN $statuses
  AND (m.expires_at IS NULL OR m.expires_at > $now)
RETURN m {.*, embedding: null} AS memory
