// Title: Overview: the best-connected memories
// Shows: the $limit active memories of $namespace with the most edges, and everything one edge away. Blue:
// memories (captioned by their title), orange: entities, green: tasks, beige: turns.
// Parameters: $namespace, $limit.
// Returns: p (paths: a graph).
MATCH (m:Memory {namespace: $namespace}) WHERE m.status = 'active'
WITH m ORDER BY COUNT { (m)--() } DESC LIMIT toInteger($limit)
MATCH p = (m)-[:ABOUT|FOLLOWS|SIMILAR_TO|DERIVED_FROM|SUPERSEDES|FROM_TASK]-()
RETURN p
