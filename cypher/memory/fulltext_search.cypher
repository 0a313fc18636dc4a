// BM25 full-text search over content and tags.
// Parameters: $index, $query (Lucene syntax, escaped by the caller), $limit, $namespaces, $statuses, $now (expired working memory is never returned).
// Returns: memory (map, no embedding), score.
CALL db.index.fulltext.queryNodes($index, $query, {limit: $limit}) YIELD node, score
WHERE node.namespace IN $namespaces AND node.status IN $statuses
  AND (node.expires_at IS NULL OR node.expires_at > $now)
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC
