// Counts of one namespace: memories by kind and status, edges by type, tasks, turns, entities. A memory past its
// expires_at counts as 'expired' whatever its status (every read hides it; the life cycle's sweep removes it).
// Parameters: $namespace, $now. Returns: what, key, n.
MATCH (m:Memory) WHERE m.namespace = $namespace
RETURN 'memory' AS what,
       m.kind + '/' + CASE WHEN m.expires_at IS NOT NULL AND m.expires_at <= $now THEN 'expired' ELSE m.status END
       AS key, count(*) AS n
UNION ALL
MATCH (m:Memory)-[r]->() WHERE m.namespace = $namespace
RETURN 'edge' AS what, type(r) AS key, count(*) AS n
UNION ALL
MATCH (x) WHERE x.namespace = $namespace AND (x:Task OR x:Turn OR x:Entity)
RETURN 'node' AS what, labels(x)[0] AS key, count(*) AS n
