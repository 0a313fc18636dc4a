// Life cycle sweep, one page: archives the namespace's active memories that are old, unused and unsure, by the
// rule of their kind (graphmem.lifecycle.policy): never accessed, confidence below rule.below, last access (or
// creation) before rule.before, not expired. Archived is soft: hidden from search, restorable, still signed (the
// memory is marked for re-signing). The page is the next $limit memories after the id $after, in id order; with
// $apply false nothing changes (the dry run counts).
// Parameters: $namespace, $rules ({kind, before, below}), $now, $after ('' for the first page), $limit, $apply.
// Returns: ids (the page's memories, in id order), entities (always 0: archiving removes none).
UNWIND $rules AS rule
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.kind = rule.kind AND m.status = 'active' AND m.id > $after
  AND coalesce(m.access_count, 0) = 0 AND m.confidence < rule.below
  AND coalesce(m.last_accessed_at, m.created_at) < rule.before
  AND (m.expires_at IS NULL OR m.expires_at > $now)
WITH m ORDER BY m.id LIMIT $limit
WITH collect(m) AS ms
CALL (ms) {
  WITH ms WHERE $apply
  UNWIND ms AS m
  SET m.status = 'archived', m.updated_at = $now, m.archived_at = $now, m._resign = true
}
RETURN [x IN ms | x.id] AS ids, 0 AS entities
