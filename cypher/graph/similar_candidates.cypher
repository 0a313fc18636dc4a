// Graph construction (before the write transaction): for each new embedding, the nearest active memories of its
// namespace at or above a cosine, best first, for SIMILAR_TO edges (vector index scores for cosine are (1 + cos) / 2).
// The index returns the nearest nodes of ALL namespaces: ``more`` says that all $k rows it gave scored at or above
// the threshold, so rows of this namespace hidden behind other namespaces' may pass too (the caller asks again,
// deeper: graphmem/service/neighbours.py).
// Parameters: $index, $rows ({idx, embedding, namespace}), $k (rows asked of the index), $min_score, $per_row, $now.
// Returns: idx, similar (list of {id, score}), more (bool).
UNWIND $rows AS row
CALL (row) {
  CALL db.index.vector.queryNodes($index, $k, row.embedding) YIELD node, score
  WITH node, score ORDER BY score DESC
  WITH collect({node: node, score: score}) AS hits
  RETURN [h IN hits WHERE h.score >= $min_score AND h.node.namespace = row.namespace AND h.node.status = 'active'
            AND (h.node.expires_at IS NULL OR h.node.expires_at > $now) | {id: h.node.id, score: h.score}] AS kept,
         size(hits) >= $k AND coalesce(hits[-1].score >= $min_score, false) AS more
}
RETURN row.idx AS idx, kept[..$per_row] AS similar, more
