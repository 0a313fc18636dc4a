// Seed channel "vector": nearest memories by the native vector index, oversampled, then filtered.
// Parameters: $index, $embedding, $oversample, $limit, and the common filters.
// Filters: $vary.namespaces, $vary.statuses, $vary.kinds (list or null), $now, $vary.as_of, $vary.after,
// $vary.before (datetimes or null),
// $vary.min_trust (a memory trusted less, its null trust counting 1, is neither a seed nor walked to).
// Those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that one
// cached plan serves every search (graphmem/retrieval/vary.py, in_map).
// Returns: id, key (element id, for the expansion), score (the index score; for cosine (1 + cos) / 2).
CALL db.index.vector.queryNodes($index, $oversample, $embedding) YIELD node AS m, score
WHERE m.namespace IN $vary.namespaces AND m.status IN $vary.statuses
  AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                          AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
  AND ($vary.after IS NULL OR m.created_at >= $vary.after)
  AND ($vary.before IS NULL OR m.created_at < $vary.before)
  AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)
RETURN m.id AS id, elementId(m) AS key, score
ORDER BY score DESC, m.id
LIMIT $limit
