// Title: Namespaces
// Shows: every namespace with its memories, so you can pick one for $namespace (the first slide sets it).
// Parameters: $limit.
// Returns: namespace, memories, active (rows).
MATCH (m:Memory)
RETURN m.namespace AS namespace, count(*) AS memories, count(CASE m.status WHEN 'active' THEN 1 END) AS active
ORDER BY memories DESC LIMIT toInteger($limit)
