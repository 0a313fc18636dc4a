// The memories nearest to several query vectors at once (one vector index call per vector), best score per
// memory, active only, of the given kinds, without the excluded ids (what the task itself produced).
// Parameters: $index, $embeddings (list of vectors), $oversample, $namespace, $kinds, $exclude (ids), $limit, $now.
// Returns: memory (map, no embedding), score.
UNWIND $embeddings AS embedding
CALL db.index.vector.queryNodes($index, $oversample, embedding) YIELD node, score
WITH node, score
WHERE node.namespace = $namespace AND node.status = 'active' AND node.kind IN $kinds
  AND NOT node.id IN $exclude AND (node.expires_at IS NULL OR node.expires_at > $now)
WITH node, max(score) AS score
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $limit
