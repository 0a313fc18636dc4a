// Seed channel "recency": the newest memories.
// Parameters: $limit, and the common filters.
// Filters: $namespaces, $statuses, $kinds (list or null), $now, $as_of, $after, $before (datetimes or null).
// Returns: id, key (element id, for the expansion), score (created_at as epoch seconds).
MATCH (m:Memory)
WHERE m.namespace IN $namespaces AND m.status IN $statuses
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND ($as_of IS NULL OR (m.created_at <= $as_of AND coalesce(m.valid_from, m.created_at) <= $as_of
                          AND (m.valid_until IS NULL OR m.valid_until > $as_of)))
  AND ($after IS NULL OR m.created_at >= $after)
  AND ($before IS NULL OR m.created_at < $before)
RETURN m.id AS id, elementId(m) AS key, m.created_at.epochSeconds AS score
ORDER BY m.created_at DESC
LIMIT $limit
