// For each new embedding, the most similar active memories of the same namespace and kind above a threshold
// (vector index scores for cosine are (1 + cos) / 2), best first, with their content for the detail check.
// Parameters: $index, $rows ({idx, embedding, namespace, kind}), $k, $min_score, $per_row, $now.
// Returns: idx, candidates (list of {id, score, content}).
UNWIND $rows AS row
CALL db.index.vector.queryNodes($index, $k, row.embedding) YIELD node, score
WITH row, node, score
WHERE score >= $min_score AND node.namespace = row.namespace AND node.kind = row.kind
  AND node.status = 'active' AND (node.expires_at IS NULL OR node.expires_at > $now)
WITH row, node, score ORDER BY score DESC
WITH row, collect({id: node.id, score: score, content: node.content})[..$per_row] AS candidates
RETURN row.idx AS idx, candidates
