// Two-level retrieval: from the task summaries a search found, down to the memories of their tasks (its turns
// and facts) nearest to the query, which no seed may have reached.
// Parameters (those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that
// one cached plan serves every search: descend.VARYING): $vary.sources (ids of the summaries among the candidates:
// the $summaries nearest to the query lead), $per_summary (memories each brings), $vary.exclude (ids that are
// candidates already), $embedding, $vary.query_entities, and the common filters ($vary.namespaces, $vary.statuses,
// $vary.kinds, $now, $vary.as_of, $vary.after, $vary.before, $vary.min_trust).
// Returns ONE row: candidates (maps as retrieval/candidates returns them, plus via: the id of the summary that
// brought it, and via_task: the task it came down through), nearest summary first.
UNWIND $vary.sources AS sid
MATCH (sm:Memory {id: sid}) WHERE sm:Summary AND sm.namespace IN $vary.namespaces
WITH DISTINCT sm
WITH sm, CASE WHEN sm.embedding IS NULL THEN 0.0 ELSE vector.similarity.cosine(sm.embedding, $embedding) END AS near
ORDER BY near DESC, sm.id LIMIT $summaries
MATCH (sm)-[:FROM_TASK]->(t:Task)
CALL (sm, t) {
  // a pattern comprehension walks from the task (the planner would otherwise scan the namespace's memories)
  UNWIND [(t)<-[:FROM_TASK]-(m:Memory)
          WHERE m <> sm AND NOT m:Summary AND NOT m.id IN $vary.exclude AND m.embedding IS NOT NULL
            AND m.status IN $vary.statuses AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
            AND (m.expires_at IS NULL OR m.expires_at > $now)
            AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of
                                         AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                                         AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
            AND ($vary.after IS NULL OR m.created_at >= $vary.after)
            AND ($vary.before IS NULL OR m.created_at < $vary.before)
            AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust) | m] AS m
  WITH m, vector.similarity.cosine(m.embedding, $embedding) AS score
  ORDER BY score DESC, m.id
  LIMIT $per_summary
  RETURN m, score
}
WITH sm, t, near, m, score ORDER BY near DESC, sm.id, score DESC, m.id
WITH collect({m: m, via: sm.id, via_task: t.id, score: score}) AS found
UNWIND found AS f
WITH f, f.m AS m
RETURN collect({
  memory: m {.id, .namespace, .kind, .content, .confidence, .importance, .access_count, .status, .tags,
             .source, .sources, .writer, .trust, .reinforced_count, .content_hash, .signature, .signature_key, .metadata_json, .title,
             last_accessed_at: toString(m.last_accessed_at), created_at: toString(m.created_at),
             updated_at: toString(m.updated_at), valid_from: toString(m.valid_from),
             valid_until: toString(m.valid_until), expires_at: toString(m.expires_at)},
  score: f.score, via: f.via, via_task: f.via_task,
  entity_hits: CASE WHEN size($vary.query_entities) = 0 THEN 0
                    ELSE COUNT { (m)-[:ABOUT]->(e:Entity) WHERE toLower(e.name) IN $vary.query_entities } END,
  before: [(m)-[:FOLLOWS]->(p:Memory) | p.id][0], after: [(n:Memory)-[:FOLLOWS]->(m) | n.id][0],
  turns: [(m)-[:DERIVED_FROM]->(t:Turn) | t.id], task: [(m)-[:FROM_TASK]->(t:Task) | t.id][0],
  summary: m:Summary
}) AS candidates
