// Memories of a namespace, newest first, keyset-paginated.
// Parameters: $namespace, $kinds (list or null), $statuses (list), $before (datetime or null), $limit, $now (expired working memory is never returned).
// Returns: memory (map, no embedding).
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.status IN $statuses
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND ($before IS NULL OR m.created_at < $before)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
RETURN m {.*, embedding: null} AS memory
ORDER BY m.created_at DESC, m.id
LIMIT $limit
