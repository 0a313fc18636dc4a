// Graph construction (before the write transaction): for each new embedding, the nearest active memories of its
// namespace at or above a cosine, best first, for SIMILAR_TO edges (vector index scores for cosine are (1 + cos) / 2).
// Parameters: $index, $rows ({idx, embedding, namespace}), $k (rows asked of the index), $min_score, $per_row, $now.
// Returns: idx, similar (list of {id, score}).
UNWIND $rows AS row
CALL db.index.vector.queryNodes($index, $k, row.embedding) YIELD node, score
WITH row, node, score
WHERE score >= $min_score AND node.namespace = row.namespace AND node.status = 'active'
  AND (node.expires_at IS NULL OR node.expires_at > $now)
WITH row, node, score ORDER BY score DESC
WITH row, collect({id: node.id, score: score})[..$per_row] AS similar
RETURN row.idx AS idx, similar
