// Seed channel "fulltext": BM25 over content and tags.
// Parameters: $index, $query (escaped Lucene), $oversample, $limit, and the common filters.
// Filters: $namespaces, $statuses, $kinds (list or null), $now, $as_of, $after, $before (datetimes or null),
// $min_trust (a memory trusted less, its null trust counting 1, is neither a seed nor walked to).
// Returns: id, key (element id, for the expansion), score (BM25).
CALL db.index.fulltext.queryNodes($index, $query, {limit: $oversample}) YIELD node AS m, score
WHERE m.namespace IN $namespaces AND m.status IN $statuses
  AND ($kinds IS NULL OR m.kind IN $kinds)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  AND ($as_of IS NULL OR (m.created_at <= $as_of AND coalesce(m.valid_from, m.created_at) <= $as_of
                          AND (m.valid_until IS NULL OR m.valid_until > $as_of)))
  AND ($after IS NULL OR m.created_at >= $after)
  AND ($before IS NULL OR m.created_at < $before)
  AND ($min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $min_trust)
RETURN m.id AS id, elementId(m) AS key, score
ORDER BY score DESC, m.id
LIMIT $limit
