// Counts of one namespace: memories by kind and status, edges by type, tasks, turns, entities.
// Parameters: $namespace. Returns: what, key, n.
MATCH (m:Memory) WHERE m.namespace = $namespace
RETURN 'memory' AS what, m.kind + '/' + m.status AS key, count(*) AS n
UNION ALL
MATCH (m:Memory)-[r]->() WHERE m.namespace = $namespace
RETURN 'edge' AS what, type(r) AS key, count(*) AS n
UNION ALL
MATCH (x) WHERE x.namespace = $namespace AND (x:Task OR x:Turn OR x:Entity)
RETURN 'node' AS what, labels(x)[0] AS key, count(*) AS n
