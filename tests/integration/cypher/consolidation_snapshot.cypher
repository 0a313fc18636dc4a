// Test only: what a write to a namespace could change, as text (the caller sorts): each node (label, id or name, status,
// confidence, validity, signature, updated_at) and each edge from it (type, other end, weight).
// Parameters: $namespace. Returns: nodes (list of strings), edges (list of strings).
MATCH (n) WHERE n.namespace = $namespace
WITH collect(labels(n)[0] + ' ' + coalesce(n.id, n.name, '') + ' ' + coalesce(n.status, '') + ' '
             + toString(coalesce(n.confidence, -1)) + ' ' + coalesce(toString(n.valid_until), '') + ' '
             + coalesce(n.signature, '') + ' ' + coalesce(toString(n.updated_at), '')) AS nodes
OPTIONAL MATCH (a)-[r]->(b) WHERE a.namespace = $namespace
WITH nodes, collect(coalesce(a.id, a.name, '') + ' -' + type(r) + '-> ' + coalesce(b.id, b.name, b.key, '') + ' '
                    + toString(coalesce(r.weight, -1))) AS edges
RETURN nodes, edges
