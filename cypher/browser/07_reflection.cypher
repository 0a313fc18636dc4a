// Title: What reflection wrote
// Shows: the facts and lessons of $namespace that name their sources (DERIVED_FROM), newest first, with
// how many turns or memories each was distilled from.
// Parameters: $namespace, $limit.
// Returns: kind, title, status, sources, created_at (rows).
MATCH (m:Memory {namespace: $namespace})-[:DERIVED_FROM]->(s)
RETURN m.kind AS kind, m.title AS title, m.status AS status, count(s) AS sources, m.created_at AS created_at
ORDER BY created_at DESC LIMIT toInteger($limit)
