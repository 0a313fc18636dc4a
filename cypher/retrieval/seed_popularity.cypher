// Seed channel "popularity": the most accessed memories (ties: most recently accessed).
// Parameters: $limit, and the common filters.
// Filters: $vary.namespaces, $vary.statuses, $vary.kinds (list or null), $now, $vary.as_of, $vary.after,
// $vary.before (datetimes or null),
// $vary.min_trust (a memory trusted less, its null trust counting 1, is neither a seed nor walked to).
// Those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that one
// cached plan serves every search (graphmem/retrieval/vary.py, in_map).
// Returns: id, key (element id, for the expansion), score (access count).
// Per namespace, the index memory_namespace_access_count is read most accessed first and stops once $limit
// matches and their ties are in (the hint keeps the planner on it on small databases too; ordering by namespace
// too lets it see the index order); then the namespaces' lists are merged. Needs schema step 015.
// Expiry is tested without OR (`coalesce(expires_at > $now, true)`): the planner splits such an OR into a union
// of two index reads, which loses the index order.
UNWIND $vary.namespaces AS ns
CALL (ns) {
  MATCH (m:Memory) USING INDEX m:Memory(namespace, access_count)
  WHERE m.namespace = ns AND m.status IN $vary.statuses AND m.access_count > 0
    AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
    AND coalesce(m.expires_at > $now, true)
    AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                            AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
    AND ($vary.after IS NULL OR m.created_at >= $vary.after)
    AND ($vary.before IS NULL OR m.created_at < $vary.before)
    AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)
  RETURN m
  ORDER BY m.namespace DESC, m.access_count DESC, m.last_accessed_at DESC
  LIMIT $limit
}
RETURN m.id AS id, elementId(m) AS key, m.access_count AS score
ORDER BY m.access_count DESC, m.last_accessed_at DESC
LIMIT $limit
