// Test helper: an edge between any two memories by id (even across namespaces), bypassing the service.
// Parameters: $a, $b. Returns: n.
MATCH (a:Memory {id: $a}), (b:Memory {id: $b})
MERGE (a)-[r:RELATES_TO]->(b) SET r.weight = 1.0
RETURN count(r) AS n
