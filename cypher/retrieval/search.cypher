// A whole search in ONE statement (hops 0 or 1): the seeds of every channel asked, fused; one hop of spreading
// activation, over a direct edge or through one entity or turn; the candidates with their cosine to the query.
// It computes what graphmem.retrieval.fusion.fuse and expansion.spread_hop compute over the rows of the
// stepwise statements (seed_*, expand_hop, candidates); tests/integration/test_search_statement.py checks that
// both give the same candidates, activations and paths. Why one statement: the stepwise path made 7 round
// trips and the client's cost per round trip and per value read dominated the latency.
// Parameters (those whose size or nullness varies from one search to the next are fields of ONE map, $vary:
// Neo4j keys a cached plan on each top-level string's or list's size bucket, so passed alone each new size of
// the question's words or full-text query planned this statement again; see graphmem.retrieval.search_params.VARYING):
//   $vary.channels (list of channel names), $channel_weights (map channel -> weight), $fusion ('rrf'|'weighted'),
//   $rrf_k, $seed_k; $vector_index, $embedding, $oversample; $fulltext_index, $vary.fulltext_query (escaped, or
//   null), $fulltext_limit;
//   $hops (0|1), $frontier_limit, $fanout, $via_limit, $via_fanout, $via_max_degree, $types,
//   $type_weights (map type -> weight), $decay, $beta, $expand_limit; the ranking's $rerank, $w_similarity,
//   $w_fused, $w_text with $vary.query_words and $word_breaks, $w_length with $length_cap, $chars_per_word and
//   $cjk_weight, $w_question with $question_marks, $w_speaker with $speaker_marks and $speaker_max_chars, $w_graph,
//   $w_entity with $vary.query_entities, $w_time with $vary.time_from and $vary.time_to (the query's time range, or
//   nulls), $w_recency, $w_frequency, $w_confidence, $half_life_days, $frequency_cap, $default_confidence,
//   $vary.keep; and the common filters $vary.namespaces, $vary.statuses, $vary.kinds (list or null), $now,
//   $vary.as_of, $vary.after, $vary.before (datetimes or null), $vary.min_trust (a memory trusted less, its null
//   trust counting 1, is neither a seed nor walked to: it leads nowhere); $vary.version_keys (the namespace version
//   counters to read, retrieval/cache.version_keys, or null: none).
// Returns ONE row: versions (the [key, version] pairs of the $vary.version_keys counters there are, read before anything
// else: see below), vector_seen and fulltext_seen (rows each index gave), vector_kept and fulltext_kept (how many
// of them passed the filters), word_weights (each of $vary.query_words' weight among the candidates: see Ranking),
// seeds (every seed: {id, hits: per channel {channel, score, rank}}), candidates: the $vary.keep best (see Ranking),
// best first, as maps
// {memory (as in retrieval/candidates), score (cosine as (1 + cos) / 2, or null; a vector seed's is the index's),
// seed_cosine (the cosine of the seed its path starts from, or null), fused (the seed's fused activation, the best
// seed 1.0; 0 when not a seed), received (activation that came over edges), path (the strongest way in: maps
// {source_id, target_id, type, weight}), seed_id, entity_hits (query entities it is ABOUT), before and after (the
// memories it FOLLOWS and that FOLLOW it, or null: the client's context stage), turns (the Turn ids it derives
// from: the client folds results that say what a better one said), task (the Task it came from, or null),
// summary (whether it is a task summary, :Summary), answer_kinds (the kinds of answer it holds, stored at write:
// graphmem.graph.answer_kinds; null for a memory written before them)}.
// Ties: seeds of equal score by id; the frontiers are the strongest nodes, ties by element id; a node walks its strongest edges (type
// weight * edge weight), ties by element id; expanded memories by activation, ties by id.
// A walk sorts a node's edges first and checks the far end's filters after: rows keep the sort's order through the
// WHERE, so LIMIT stops after reading the few it keeps (a hub entity has thousands of edges; filtering all of them
// first read five properties per edge, a third of a 100k search's time). Both walks do this, as expand_hop does.
// The namespace versions (as retrieval/namespace_versions) come first, in an aggregate that the seed reads depend
// on (each imports `versions`, so the planner cannot put it after them): they are read before any memory is, so a
// write that commits during the search makes the cached result stale at its next check, never fresh
// (retrieval/cache.py). A search whose cache entry is checked first reads them apart and passes null.
MATCH (v:NamespaceVersion) WHERE v.key IN coalesce($vary.version_keys, [])
WITH collect([v.key, v.version]) AS versions
CALL (versions) {
  WITH 1 AS go WHERE 'vector' IN $vary.channels AND versions IS NOT NULL
  CALL db.index.vector.queryNodes($vector_index, $oversample, $embedding) YIELD node AS m, score
  WITH m, score ORDER BY score DESC, m.id
  WITH count(*) AS seen, collect(CASE WHEN m.namespace IN $vary.namespaces AND m.status IN $vary.statuses
      AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
      AND (m.expires_at IS NULL OR m.expires_at > $now)
      AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                              AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
      AND ($vary.after IS NULL OR m.created_at >= $vary.after)
      AND ($vary.before IS NULL OR m.created_at < $vary.before)
      AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust) THEN {node: m, score: toFloat(score)} END) AS kept
  RETURN seen AS vector_seen, size(kept) AS vector_kept, kept[..$seed_k] AS vector
}
CALL (versions) {
  WITH 1 AS go WHERE 'fulltext' IN $vary.channels AND $vary.fulltext_query IS NOT NULL AND versions IS NOT NULL
  CALL db.index.fulltext.queryNodes($fulltext_index, $vary.fulltext_query, {limit: $fulltext_limit}) YIELD node AS m, score
  WITH m, score ORDER BY score DESC, m.id
  WITH count(*) AS seen, collect(CASE WHEN m.namespace IN $vary.namespaces AND m.status IN $vary.statuses
      AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
      AND (m.expires_at IS NULL OR m.expires_at > $now)
      AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                              AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
      AND ($vary.after IS NULL OR m.created_at >= $vary.after)
      AND ($vary.before IS NULL OR m.created_at < $vary.before)
      AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust) THEN {node: m, score: toFloat(score)} END) AS kept
  RETURN seen AS fulltext_seen, size(kept) AS fulltext_kept, kept[..$seed_k] AS fulltext
}
// Recency and popularity: as retrieval/seed_recency and seed_popularity (an index read in order per namespace).
CALL (versions) {
  UNWIND CASE WHEN 'recency' IN $vary.channels AND versions IS NOT NULL THEN $vary.namespaces ELSE [] END AS ns
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
    LIMIT $seed_k
  }
  WITH m ORDER BY m.created_at DESC LIMIT $seed_k
  RETURN collect({node: m, score: toFloat(m.created_at.epochSeconds)}) AS recency
}
CALL (versions) {
  UNWIND CASE WHEN 'popularity' IN $vary.channels AND versions IS NOT NULL THEN $vary.namespaces ELSE [] END AS ns
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
    LIMIT $seed_k
  }
  WITH m ORDER BY m.access_count DESC, m.last_accessed_at DESC LIMIT $seed_k
  RETURN collect({node: m, score: toFloat(m.access_count)}) AS popularity
}
// Fusion (fusion.fuse): rrf sums weight / (rrf_k + rank); weighted sums weight * min-max normalised score.
CALL (vector, fulltext, recency, popularity) {
  UNWIND [['vector', vector], ['fulltext', fulltext], ['recency', recency], ['popularity', popularity]] AS list
  WITH list[0] AS channel, list[1] AS items
  WITH channel, items, toFloat(coalesce($channel_weights[channel], 1.0)) AS w,
       reduce(lo = null, it IN items | CASE WHEN lo IS NULL OR it.score < lo THEN it.score ELSE lo END) AS lo,
       reduce(hi = null, it IN items | CASE WHEN hi IS NULL OR it.score > hi THEN it.score ELSE hi END) AS hi
  UNWIND range(0, size(items) - 1) AS i
  WITH items[i].node AS m, channel, items[i].score AS score, i + 1 AS rank, w, lo, hi
  WITH m, collect({channel: channel, score: score, rank: rank}) AS hits,
       sum(CASE $fusion WHEN 'rrf' THEN w / ($rrf_k + rank)
           ELSE w * CASE WHEN hi = lo THEN 1.0 ELSE (score - lo) / (hi - lo) END END) AS fused
  WITH collect({node: m, hits: hits, fused: fused}) AS seeds, max(fused) AS top
  RETURN [s IN seeds | {node: s.node, hits: s.hits, a: CASE WHEN top > 0 THEN s.fused / top ELSE s.fused END}]
         AS seeds
}
// Hop, step 1 (expansion.spread_hop): the strongest seeds walk their $fanout strongest edges each and pass
// a(u) * type weight * edge weight * decay / degree(u) ^ beta to the far end; an edge passes from the seeds that
// walked it only. Per node reached: the sum, and the strongest pass [passed, from, edge] (its path is built only
// for the candidates, at the end).
CALL (seeds) {
  UNWIND seeds AS s
  WITH s WHERE $hops > 0
  WITH s.node AS u, s.a AS act ORDER BY act DESC, elementId(u) LIMIT $frontier_limit
  WITH u, act, COUNT { (u)--() } AS deg
  CALL (u) {
    MATCH (u)-[r]-(m)
    WHERE type(r) IN $types
    WITH r, m ORDER BY coalesce($type_weights[type(r)], 0.0) * coalesce(r.weight, 1.0) DESC, elementId(r)
    WITH r, m WHERE m.namespace IN $vary.namespaces
      AND (m:Entity OR m:Turn OR (m:Memory AND m.status IN $vary.statuses
        AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
        AND (m.expires_at IS NULL OR m.expires_at > $now)
        AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                                AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
        AND ($vary.after IS NULL OR m.created_at >= $vary.after)
        AND ($vary.before IS NULL OR m.created_at < $vary.before)
        AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)))
    RETURN r, m AS v
    LIMIT $fanout
  }
  WITH v, u, r, act * toFloat(coalesce($type_weights[type(r)], 0.0)) * toFloat(coalesce(r.weight, 1.0)) * $decay
                  / (CASE WHEN deg < 1 THEN 1 ELSE deg END) ^ $beta AS passed
  WHERE passed > 0
  WITH v, u, r, passed ORDER BY passed DESC
  WITH v, sum(passed) AS received, collect([passed, u, r])[0] AS best
  RETURN collect({node: v, received: received, passed: best[0], seed: best[1], rels: [best[2]], order: 1}) AS hop1
}
// Hop, step 2: the $via_limit strongest entities and turns reached, of at most $via_max_degree edges, walk their
// $via_fanout strongest edges and pass on to the memories there (seed -ABOUT-> entity <-ABOUT- memory). Only they
// walk in this step, and only the memories at the other end count, so each walked edge passes once, from the walker.
// A hub (an entity hundreds of memories are ABOUT) does not walk: its edges tie on type and weight, so the
// $via_fanout it would walk are an arbitrary few of its memories, and sorting its edges was most of this step's time.
CALL (hop1) {
  UNWIND hop1 AS h
  WITH h WHERE NOT h.node:Memory
  WITH h, h.node AS u
  WITH h, u, COUNT { (u)--() } AS deg
  WITH h, u, deg WHERE deg <= $via_max_degree
  WITH h, u, deg ORDER BY h.received DESC, elementId(u) LIMIT $via_limit
  CALL (u) {
    MATCH (u)-[r]-(m)
    WHERE type(r) IN $types
    WITH r, m ORDER BY coalesce($type_weights[type(r)], 0.0) * coalesce(r.weight, 1.0) DESC, elementId(r)
    WITH r, m WHERE m.namespace IN $vary.namespaces
      AND (m:Entity OR m:Turn OR (m:Memory AND m.status IN $vary.statuses
        AND ($vary.kinds IS NULL OR m.kind IN $vary.kinds)
        AND (m.expires_at IS NULL OR m.expires_at > $now)
        AND ($vary.as_of IS NULL OR (m.created_at <= $vary.as_of AND coalesce(m.valid_from, m.created_at) <= $vary.as_of
                                AND (m.valid_until IS NULL OR m.valid_until > $vary.as_of)))
        AND ($vary.after IS NULL OR m.created_at >= $vary.after)
        AND ($vary.before IS NULL OR m.created_at < $vary.before)
        AND ($vary.min_trust = 0.0 OR coalesce(m.trust, 1.0) >= $vary.min_trust)))
    RETURN r, m
    LIMIT $via_fanout
  }
  WITH h, deg, r, m WHERE m:Memory
  WITH m, h, r, h.received * toFloat(coalesce($type_weights[type(r)], 0.0)) * toFloat(coalesce(r.weight, 1.0))
         * $decay / (CASE WHEN deg < 1 THEN 1 ELSE deg END) ^ $beta AS passed
  WHERE passed > 0
  WITH m, h, r, passed ORDER BY passed DESC
  WITH m, sum(passed) AS received, collect([passed, h, r])[0] AS best
  RETURN collect({node: m, received: received, passed: best[0], seed: best[1].seed, rels: best[1].rels + [best[2]],
                  order: 2}) AS hop2
}
// Per memory: its fused seed activation, what it received in both steps, and its strongest way in (step 1
// wins a tie). Candidates: every seed, and the $expand_limit most activated other memories.
CALL (seeds, hop1, hop2) {
  UNWIND seeds + [h IN hop1 WHERE h.node:Memory] + hop2 AS e
  WITH e ORDER BY coalesce(e.passed, 0.0) DESC, coalesce(e.order, 0)
  WITH e.node AS m, sum(coalesce(e.a, 0.0)) AS fused, sum(coalesce(e.received, 0.0)) AS received,
       collect(e.hits)[0] AS hits, collect(e)[0] AS way
  WITH collect({m: m, fused: fused, received: received, hits: hits,
                way: CASE WHEN hits IS NULL THEN way END}) AS all
  WITH [x IN all WHERE x.hits IS NOT NULL] AS seeded, [x IN all WHERE x.hits IS NULL] AS reached
  UNWIND (reached + [null]) AS x
  WITH seeded, x ORDER BY x.received DESC, x.m.id DESC
  WITH seeded, [y IN collect(x) WHERE y IS NOT NULL][..$expand_limit] AS expanded
  RETURN seeded + expanded AS picked
}
// Ranking (service._rank): every candidate's score as the client computes it, so that only the $vary.keep best come back
// (null: all). The client scores those again; this only decides which it gets. A candidate's similarity is the
// larger of its cosine and its seed's cosine times each edge's type and edge weight on its path (not below 0);
// $rerank 'none' ranks by fused + received, any other mode by the formula (graphmem.retrieval.formula: weights
// $w_*, received capped at 1, the text term the squared weighted share of $vary.query_words (wordmatch.needles: the
// query's stemmed content words after a space, Chinese bigrams as they are) its lowercased content holds (with a
// space before it, each of $word_breaks read as a space, and a space after a Chinese character that anything but
// Chinese or a space follows), each word weighing ln(1 + N / (1 + n)) among the N
// candidates, n of which hold it (wordmatch.word_weights; returned as word_weights), the length term
// log(1 + chars / $chars_per_word) / log(1 + $length_cap / $chars_per_word), 1 from $length_cap on (chars: a kana,
// CJK or Hangul character counts $cjk_weight, as formula.weighted_length), $w_question taken off a memory whose
// content ends with one of $question_marks (formula.asks), $w_speaker added to one said by someone the query names
// (formula.speaker_of: its opening before the first of $speaker_marks, 1 to $speaker_max_chars characters, trimmed
// and lowercase, is one of $vary.query_entities; not read when it cannot count), the entity term the share of
// $vary.query_entities (names found in the query, lowercase) the memory is ABOUT, the time term for a memory created in [$vary.time_from,
// $vary.time_to), $half_life_days, $frequency_cap; a null confidence counts as $default_confidence, a null created_at as now), times the memory's
// trust (its writer's, graphmem.security.tokens; null counts as 1). A memory trusted below $vary.min_trust is no
// candidate: the seeds and the walks left it out (the common filters), so it led to nothing either.
CALL (picked) {
  UNWIND picked AS c
  WITH c, coalesce([h IN c.hits WHERE h.channel = 'vector'][0].score,
                   CASE WHEN c.m.embedding IS NULL THEN null ELSE vector.similarity.cosine(c.m.embedding, $embedding) END)
          AS score,
       CASE WHEN size($vary.query_words) = 0 THEN '' ELSE reduce(t = ' ' + toLower(coalesce(c.m.content, '')),
                                                             b IN $word_breaks | replace(t, b, ' ')) END AS t
  // content with a Chinese character: a space after each one that anything but Chinese or a space follows
  // (wordmatch.searchable: "是python" holds " python"), character by character; other content as it is
  WITH c, score, t, CASE WHEN t =~ '(?s).*[\u3400-\u9fff\uf900-\ufaff].*' THEN split(t, '') END AS cs
  WITH collect({c: c, score: score, cos: CASE WHEN score IS NULL THEN 0.0 ELSE 2.0 * score - 1.0 END,
                t: CASE WHEN cs IS NULL THEN t ELSE reduce(s = '', i IN range(0, size(cs) - 1) | s + cs[i]
                     + CASE WHEN i < size(cs) - 1 AND cs[i + 1] <> ' '
                                 AND ((cs[i] >= '\u3400' AND cs[i] <= '\u9fff')
                                      OR (cs[i] >= '\uf900' AND cs[i] <= '\ufaff'))
                                 AND NOT ((cs[i + 1] >= '\u3400' AND cs[i + 1] <= '\u9fff')
                                          OR (cs[i + 1] >= '\uf900' AND cs[i + 1] <= '\ufaff'))
                            THEN ' ' ELSE '' END) END})
       AS pool
  WITH pool, [w IN $vary.query_words | log(1.0 + toFloat(size(pool)) / (1 + size([y IN pool WHERE y.t CONTAINS w])))]
       AS idf
  WITH pool, idf, reduce(s = 0.0, v IN idf | s + v) AS idf_total
  UNWIND pool AS x
  WITH pool, idf, idf_total, x,
       CASE WHEN x.c.way IS NULL THEN null ELSE [y IN pool WHERE y.c.m = x.c.way.seed][0].cos END AS seed_cos
  WITH idf, idf_total, x, seed_cos,
       CASE WHEN seed_cos IS NULL THEN 0.0 ELSE seed_cos * reduce(p = 1.0, r IN x.c.way.rels |
         p * coalesce($type_weights[type(r)], 0.0) * coalesce(r.weight, 1.0)) END AS inherited,
       coalesce($vary.as_of, $now) AS at, x.c.m AS node
  WITH idf, x, seed_cos, reduce(hi = 0.0, v IN [x.cos, inherited] | CASE WHEN v > hi THEN v ELSE hi END) AS similarity,
       CASE WHEN x.c.m.created_at IS NULL OR x.c.m.created_at >= at THEN null
            ELSE duration.inSeconds(x.c.m.created_at, at) END AS age,
       log(1.0 + CASE WHEN coalesce(x.c.m.access_count, 0) > 0 THEN x.c.m.access_count ELSE 0 END)
         / log(1.0 + $frequency_cap) AS freq,
       CASE WHEN size($vary.query_entities) = 0 THEN 0
            ELSE COUNT { (node)-[:ABOUT]->(e:Entity) WHERE toLower(e.name) IN $vary.query_entities } END AS entity_hits,
       size(coalesce(x.c.m.content, '')) + ($cjk_weight - 1) * size([ch IN split(coalesce(x.c.m.content, ''), '')
         WHERE (ch >= '\u3040' AND ch <= '\u9fff') OR (ch >= '\uac00' AND ch <= '\ud7af')
            OR (ch >= '\uf900' AND ch <= '\ufaff')]) AS chars,
       CASE WHEN idf_total > 0 THEN reduce(s = 0.0, i IN range(0, size($vary.query_words) - 1) |
         s + CASE WHEN x.t CONTAINS $vary.query_words[i] THEN idf[i] ELSE 0.0 END) / idf_total ELSE 0.0 END AS words,
       right(rtrim(coalesce(x.c.m.content, '')), 1) IN $question_marks AS asks,
       CASE WHEN $w_speaker = 0.0 OR size($vary.query_entities) = 0 OR $rerank = 'none' THEN ''
            ELSE reduce(o = ltrim(coalesce(x.c.m.content, '')), mark IN $speaker_marks |
                        coalesce(split(o, mark)[0], '')) END AS opening,
       size(ltrim(coalesce(x.c.m.content, ''))) AS opened
  WITH idf, x, seed_cos, entity_hits, CASE $rerank WHEN 'none' THEN x.c.fused + x.c.received
       ELSE ($w_similarity * similarity + $w_fused * x.c.fused
            + $w_text * words * words
            + $w_length * CASE WHEN chars >= $length_cap THEN 1.0
                               ELSE log(1.0 + chars / $chars_per_word) / log(1.0 + $length_cap / $chars_per_word) END
            - $w_question * CASE WHEN asks THEN 1.0 ELSE 0.0 END
            + $w_speaker * CASE WHEN size(opening) < opened AND size(opening) <= $speaker_max_chars
                                     AND trim(opening) <> '' AND toLower(trim(opening)) IN $vary.query_entities
                                THEN 1.0 ELSE 0.0 END
            + $w_entity * CASE WHEN size($vary.query_entities) = 0 THEN 0.0
                               ELSE toFloat(entity_hits) / size($vary.query_entities) END
            + $w_graph * CASE WHEN x.c.received > 1.0 THEN 1.0 ELSE x.c.received END
            + $w_time * CASE WHEN $vary.time_from IS NOT NULL AND x.c.m.created_at >= $vary.time_from
                               AND x.c.m.created_at < $vary.time_to THEN 1.0 ELSE 0.0 END
            + $w_recency * CASE WHEN age IS NULL THEN 1.0 ELSE exp(-log(2.0)
                * (age.seconds + age.nanosecondsOfSecond / 1e9) / 86400.0 / $half_life_days) END
            + $w_frequency * CASE WHEN freq > 1.0 THEN 1.0 ELSE freq END
            + $w_confidence * coalesce(x.c.m.confidence, $default_confidence)) * coalesce(x.c.m.trust, 1.0)
       END AS base
  ORDER BY round(base, 6) DESC, x.c.m.id
  LIMIT coalesce($vary.keep, 1000000000)
  WITH idf, x, seed_cos, entity_hits, x.c.m AS node
  RETURN collect(idf)[0] AS word_weights, collect(x {.c, .score, seed_cos: seed_cos, entity_hits: entity_hits,
                    before: [(node)-[:FOLLOWS]->(p:Memory) | p.id][0], after: [(n:Memory)-[:FOLLOWS]->(node) | n.id][0],
                    turns: [(node)-[:DERIVED_FROM]->(t:Turn) | t.id],
                    task: [(node)-[:FROM_TASK]->(t:Task) | t.id][0], summary: node:Summary}) AS ranked
}
RETURN versions, vector_seen, vector_kept, fulltext_seen, fulltext_kept, coalesce(word_weights, []) AS word_weights,
       [x IN ranked | {
  memory: {id: x.c.m.id, namespace: x.c.m.namespace, kind: x.c.m.kind, content: x.c.m.content,
           confidence: x.c.m.confidence, importance: x.c.m.importance, access_count: x.c.m.access_count,
           status: x.c.m.status, tags: x.c.m.tags, source: x.c.m.source, sources: x.c.m.sources,
           writer: x.c.m.writer, trust: x.c.m.trust,
           reinforced_count: x.c.m.reinforced_count, content_hash: x.c.m.content_hash, signature: x.c.m.signature,
           signature_key: x.c.m.signature_key,
           metadata_json: x.c.m.metadata_json, title: x.c.m.title, last_accessed_at: toString(x.c.m.last_accessed_at),
           created_at: toString(x.c.m.created_at), updated_at: toString(x.c.m.updated_at),
           valid_from: toString(x.c.m.valid_from), valid_until: toString(x.c.m.valid_until),
           expires_at: toString(x.c.m.expires_at)},
  score: x.score, seed_cosine: x.seed_cos, fused: x.c.fused, received: x.c.received, seed_id: x.c.way.seed.id,
  answer_kinds: x.c.m.answer_kinds, entity_hits: x.entity_hits, before: x.before, after: x.after, turns: x.turns, task: x.task, summary: x.summary,
  path: [r IN coalesce(x.c.way.rels, []) | {source_id: coalesce(startNode(r).id, startNode(r).name, elementId(startNode(r))),
                                            target_id: coalesce(endNode(r).id, endNode(r).name, elementId(endNode(r))),
                                            type: type(r), weight: toFloat(coalesce(r.weight, 1.0))}]
}] AS candidates, [c IN picked WHERE c.hits IS NOT NULL | {id: c.m.id, hits: c.hits}] AS seeds
