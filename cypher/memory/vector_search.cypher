// Nearest memories by the native vector index, oversampled then filtered.
// Parameters: $index, $embedding, $oversample (int), $k, $namespaces, $kinds (list or null), $statuses, $now (expired working memory is never returned).
// Returns: memory (map, no embedding), score.
CALL db.index.vector.queryNodes($index, $oversample, $embedding) YIELD node, score
WHERE node.namespace IN $namespaces AND node.status IN $statuses
  AND ($kinds IS NULL OR node.kind IN $kinds)
  AND (node.expires_at IS NULL OR node.expires_at > $now)
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC
LIMIT $k
