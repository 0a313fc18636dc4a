// Tests: edges from a node of the given namespaces to a node of another namespace (there must be none).
// Parameters: $namespaces. Returns: source_namespace, type, target_namespace, n.
MATCH (a)-[r]->(b) WHERE a.namespace IN $namespaces AND b.namespace <> a.namespace
RETURN a.namespace AS source_namespace, type(r) AS type, b.namespace AS target_namespace, count(*) AS n
