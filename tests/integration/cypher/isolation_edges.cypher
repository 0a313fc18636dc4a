// Test only: every edge touching a node of the given namespaces, with both ends' namespaces (null for a node
// without one) and the edge's properties, for the tenant isolation audit. Parameters: $namespaces.
// Returns: source_namespace, source_labels, type, target_namespace, target_labels, props (map).
MATCH (a)-[r]->(b) WHERE a.namespace IN $namespaces OR b.namespace IN $namespaces
RETURN a.namespace AS source_namespace, labels(a) AS source_labels, type(r) AS type,
       b.namespace AS target_namespace, labels(b) AS target_labels, r {.*} AS props
