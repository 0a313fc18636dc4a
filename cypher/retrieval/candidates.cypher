// The candidates of a search, with their similarity to the query computed in the database.
// Parameters: $vary.ids, $vary.namespaces (the search's: ids are unique per namespace only), $embedding,
// $vary.query_entities (lowercase names found in the query).
// Those whose size or nullness varies from one search to the next are fields of ONE map, $vary, so that one
// cached plan serves every search (graphmem/retrieval/vary.py, in_map).
// Returns ONE row: candidates, a list of maps {memory (map of every Memory property but the embedding, its
// datetimes as ISO-8601 strings), score (cosine as (1 + cos) / 2, or null), answer_kinds, entity_hits, before, after,
// turns, task, summary (as retrieval/search returns them)}.
// Why so: one row, as the driver's cost per record dominated; the properties named, as `m {.*}` reads the
// embedding too; datetimes as strings, as the driver's DateTime hydration cost more than the query itself.
// Every Memory field must be listed here (tests/unit/test_retrieval_pure.py checks it).
UNWIND $vary.ids AS id
MATCH (m:Memory {id: id}) WHERE m.namespace IN $vary.namespaces
RETURN collect({
  memory: m {.id, .namespace, .kind, .content, .confidence, .importance, .access_count, .status, .tags,
             .source, .sources, .writer, .trust, .reinforced_count, .content_hash, .signature, .signature_key, .metadata_json, .title,
             last_accessed_at: toString(m.last_accessed_at), created_at: toString(m.created_at),
             updated_at: toString(m.updated_at), valid_from: toString(m.valid_from),
             valid_until: toString(m.valid_until), expires_at: toString(m.expires_at)},
  score: CASE WHEN m.embedding IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $embedding) END,
  answer_kinds: m.answer_kinds,
  entity_hits: CASE WHEN size($vary.query_entities) = 0 THEN 0
                    ELSE COUNT { (m)-[:ABOUT]->(e:Entity) WHERE toLower(e.name) IN $vary.query_entities } END,
  before: [(m)-[:FOLLOWS]->(p:Memory) | p.id][0], after: [(n:Memory)-[:FOLLOWS]->(m) | n.id][0],
  turns: [(m)-[:DERIVED_FROM]->(t:Turn) | t.id], task: [(m)-[:FROM_TASK]->(t:Task) | t.id][0],
  summary: m:Summary
}) AS candidates
