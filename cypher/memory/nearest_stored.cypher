// The write path's one vector lookup per new embedding (before the write transaction): the active memories of the
// same namespace nearest to it, best first, kept for two uses (vector index scores for cosine are (1 + cos) / 2):
// - candidates: near duplicates, of the same kind and at or above $min_score, with their content for the detail
//   check and their signed fields (a memory that fails verification or is trusted less is no target);
// - similar: at or above $similar_min, of any kind, for the new memory's SIMILAR_TO edges.
// The index returns the nearest nodes of ALL namespaces: ``more`` (``more_similar``) says that all $k rows it gave
// scored at or above $min_score ($similar_min), so rows of this namespace hidden behind other namespaces' may pass
// too (the caller asks again, deeper: graphmem/service/nearest.py).
// Parameters: $index, $rows ({idx, embedding, namespace, kind}), $k, $min_score, $per_row, $similar_min,
// $similar_per_row, $now. Returns: idx, candidates (list of {id, score, content, signed}), similar (list of
// {id, score}), more, more_similar (bool).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes($index, $k, row.embedding) YIELD node, score
  WITH node, score ORDER BY score DESC
  WITH collect({node: node, score: score}) AS hits
  WITH hits, [h IN hits WHERE h.node.namespace = row.namespace AND h.node.status = 'active'
                AND (h.node.expires_at IS NULL OR h.node.expires_at > $now)] AS live
  RETURN [h IN live WHERE h.score >= $min_score AND h.node.kind = row.kind
          | {id: h.node.id, score: h.score, content: h.node.content,
             signed: {id: h.node.id, namespace: h.node.namespace, kind: h.node.kind, content: h.node.content,
                      status: h.node.status, confidence: h.node.confidence, importance: h.node.importance,
                      source: h.node.source, sources: h.node.sources, tags: h.node.tags,
                      created_at: h.node.created_at, valid_from: h.node.valid_from,
                      valid_until: h.node.valid_until, expires_at: h.node.expires_at,
                      writer: h.node.writer, trust: h.node.trust, metadata_json: h.node.metadata_json,
                      title: h.node.title,
                      signature: h.node.signature, signature_key: h.node.signature_key}}][..$per_row] AS candidates,
         [h IN live WHERE h.score >= $similar_min | {id: h.node.id, score: h.score}][..$similar_per_row] AS similar,
         size(hits) >= $k AND coalesce(hits[-1].score >= $min_score, false) AS more,
         size(hits) >= $k AND coalesce(hits[-1].score >= $similar_min, false) AS more_similar
}
RETURN row.idx AS idx, candidates, similar, more, more_similar
