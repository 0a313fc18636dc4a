// Test only: every node of the given namespaces with its properties (embeddings left out), for the tenant
// isolation audit. Parameters: $namespaces. Returns: namespace, labels, id, status, content, props (map).
MATCH (n) WHERE n.namespace IN $namespaces
RETURN n.namespace AS namespace, labels(n) AS labels, n.id AS id, n.status AS status, n.content AS content,
       n {.*, embedding: null} AS props
