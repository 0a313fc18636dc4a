// For each new embedding, the most similar active memories of the same namespace and kind above a threshold
// (vector index scores for cosine are (1 + cos) / 2), best first, with their content for the detail check.
// The index returns the nearest nodes of ALL namespaces: ``more`` says that all $k rows it gave scored above the
// threshold, so rows hidden behind other namespaces' may pass too (the caller asks again with a larger $k).
// Parameters: $index, $rows ({idx, embedding, namespace, kind}), $k, $min_score, $per_row, $now.
// Returns: idx, candidates (list of {id, score, content}), more (bool).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes($index, $k, row.embedding) YIELD node, score
  WITH node, score ORDER BY score DESC
  WITH collect({node: node, score: score}) AS hits
  RETURN [h IN hits WHERE h.score >= $min_score AND h.node.namespace = row.namespace AND h.node.kind = row.kind
            AND h.node.status = 'active' AND (h.node.expires_at IS NULL OR h.node.expires_at > $now)
          | {id: h.node.id, score: h.score, content: h.node.content,
             signed: {id: h.node.id, namespace: h.node.namespace, kind: h.node.kind, content: h.node.content,
                      status: h.node.status, confidence: h.node.confidence, importance: h.node.importance,
                      source: h.node.source, sources: h.node.sources, tags: h.node.tags,
                      created_at: h.node.created_at, valid_from: h.node.valid_from,
                      valid_until: h.node.valid_until, expires_at: h.node.expires_at,
                      writer: h.node.writer, trust: h.node.trust,
                      signature: h.node.signature, signature_key: h.node.signature_key}}] AS kept,
         size(hits) >= $k AND coalesce(hits[-1].score >= $min_score, false) AS more
}
RETURN row.idx AS idx, kept[..$per_row] AS candidates, more
