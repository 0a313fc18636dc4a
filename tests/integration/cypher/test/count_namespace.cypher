// Test helper: counts of nodes by label and edges by type in one namespace.
// Parameters: $namespace. Returns: what, n.
MATCH (n) WHERE n.namespace = $namespace
WITH labels(n)[0] AS what, count(*) AS n
RETURN what, n
UNION ALL
MATCH (a)-[r]->() WHERE a.namespace = $namespace
RETURN type(r) AS what, count(*) AS n
