// Seed channel "recency": the newest memories.
// Parameters: $limit, and the common filters.
// Filters: $vary.namespaces, $vary.statuses, $vary.kinds (list or null), $now, $vary.as_of, $vary.after,
// $vary.before (datetimes or null),
// $vary.min_trust (a memory trusted less, its null trust counting 1, is neither a seed nor walked to).
// Those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that one
// cached plan serves every search (graphmem/retrieval/vary.py, in_map).
// Returns: id, key (element id, for the expansion), score (created_at as epoch seconds).
// Per namespace, the index memory_namespace_created_at is read newest first and stops after $limit matches
// (the hint and `created_at IS NOT NULL`, true of every memory, keep the planner off memory_namespace, which it
// picks on small databases; ordering by namespace too lets it see the index order); then the lists are merged.
// Needs schema step 014.
// Expiry is tested without OR (`coalesce(expires_at > $now, true)`): the planner splits such an OR into a union
// of two index reads, which loses the index order.
UNWIND $vary.namespaces AS ns
CALL (ns) {
  MATCH (m:Memory) USING INDEX m:Memory(namespace, created_at)
  WHERE m.namespace = ns AND m.created_at IS NOT NULL AND m.status IN $vary.statuses
    AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
    AND coalesce(m.expires_at > $now, true)
    AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                            AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
    AND ($vary.after IS NULL OR m.created_at >= $vary.after)
    AND ($vary.before IS NULL OR m.created_at < $vary.before)
    AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)
  RETURN m
  ORDER BY m.namespace DESC, m.created_at DESC
  LIMIT $limit
}
RETURN m.id AS id, elementId(m) AS key, m.created_at.epochSeconds AS score
ORDER BY m.created_at DESC
LIMIT $limit
