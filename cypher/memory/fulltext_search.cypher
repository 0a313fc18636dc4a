// BM25 full-text search over content and tags.
// Parameters: $index, $query (Lucene syntax, escaped by the caller), $limit, $namespaces, $statuses.
// Returns: memory (map, no embedding), score.
CALL db.index.fulltext.queryNodes($index, $query, {limit: $limit}) YIELD node, score
WHERE node.namespace IN $namespaces AND node.status IN $statuses
RETURN node {.*, embedding: null} AS memory, score
ORDER BY score DESC
