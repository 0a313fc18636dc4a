// Title: What reflection wrote
// Shows: the facts and lessons of $namespace that came from a task or name their sources (DERIVED_FROM), newest
// first, with how many turns or memories each was distilled from (in the LoCoMo demo: its observations; a turn's
// own memory and a task summary are episodic, and left out).
// Parameters: $namespace, $limit.
// Returns: kind, title, status, sources, created_at (rows).
MATCH (m:Memory {namespace: $namespace})
WHERE m.kind IN ['semantic', 'lesson']
  AND (EXISTS { (m)-[:DERIVED_FROM]->() } OR EXISTS { (m)-[:FROM_TASK]->(:Task) })
RETURN m.kind AS kind, m.title AS title, m.status AS status, COUNT { (m)-[:DERIVED_FROM]->() } AS sources,
       m.created_at AS created_at
ORDER BY created_at DESC LIMIT toInteger($limit)
