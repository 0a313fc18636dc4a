// A page of memories of one namespace, newest first, by keyset cursor (created_at, id).
// Parameters: $namespace, $kinds (list or null), $statuses, $cursor_at (datetime or null), $cursor_id, $limit,
// $now. Returns: memory (map, no embedding).
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.status IN $statuses
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND ($cursor_at IS NULL OR m.created_at < $cursor_at OR (m.created_at = $cursor_at AND m.id > $cursor_id))
RETURN m {.*, embedding: null} AS memory
ORDER BY m.created_at DESC, m.id ASC
LIMIT $limit
