// Test helper: a fingerprint of a namespace (counts of nodes and edges, sums of confidences).
// Parameters: $namespace. Returns: what, n, conf, reinforced.
MATCH (n) WHERE n.namespace = $namespace
RETURN labels(n)[0] AS what, count(*) AS n, sum(coalesce(n.confidence, 0.0)) AS conf,
       sum(coalesce(n.reinforced_count, 0)) AS reinforced
UNION ALL
MATCH (a)-[r]->() WHERE a.namespace = $namespace
RETURN type(r) AS what, count(*) AS n, 0.0 AS conf, 0 AS reinforced
