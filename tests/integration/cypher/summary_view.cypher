// Test only: every task summary of a namespace, with its links (the shape tests/integration/test_summaries.py reads).
// Parameters: $namespace. Returns: id, status, content, task, derived (Turn ids), follows (FOLLOWS edges touching it),
// supersedes (ids it SUPERSEDES).
MATCH (m:Summary {namespace: $namespace})
RETURN m.id AS id, m.status AS status, m.content AS content, [(m)-[:FROM_TASK]->(t:Task) | t.id] AS task,
       [(m)-[:DERIVED_FROM]->(u:Turn) | u.id] AS derived, COUNT { (m)-[:FOLLOWS]-() } AS follows,
       [(m)-[:SUPERSEDES]->(o:Memory) | o.id] AS supersedes
ORDER BY m.created_at, m.id
