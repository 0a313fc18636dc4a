// Consolidation: the survivor of a merge after its members were archived into it: its confidence strengthened by
// them (the write path's rule, memory/strengthen: the doubt 1 - c times $factor = prod(1 - alpha * c_member)),
// the widest validity, the union of tags and sources, their access counts and reinforcements added (it answers
// for all of them now). Marks it for re-signing. Only an active survivor is changed (no row: the caller rolls the
// cluster back).
// Parameters: $namespace, $id, $factor, $importance, $valid_from, $valid_until (or null: open), $tags, $tags_text,
// $sources, $added_access, $added_reinforced, $last_accessed_at (or null), $at.
// Returns: id, confidence.
MATCH (s:Memory {namespace: $namespace, id: $id}) WHERE s.status = 'active'
SET s.confidence = 1.0 - (1.0 - s.confidence) * $factor,
    s.importance = CASE WHEN $importance > s.importance THEN $importance ELSE s.importance END,
    s.valid_from = $valid_from, s.valid_until = $valid_until, s.tags = $tags, s.tags_text = $tags_text,
    s.sources = $sources,
    s.access_count = coalesce(s.access_count, 0) + $added_access,
    s.reinforced_count = coalesce(s.reinforced_count, 0) + $added_reinforced,
    s.last_accessed_at = CASE WHEN $last_accessed_at IS NOT NULL
                                   AND (s.last_accessed_at IS NULL OR s.last_accessed_at < $last_accessed_at)
                              THEN $last_accessed_at ELSE s.last_accessed_at END,
    s.updated_at = $at, s._resign = true
RETURN s.id AS id, s.confidence AS confidence
