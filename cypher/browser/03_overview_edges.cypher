// Title: Overview: edge types
// Shows: the edges of $namespace by type, with what they join: ABOUT (memory to entity), FOLLOWS (a task's
// episodic memory to the one before it), SIMILAR_TO, DERIVED_FROM (a memory to its sources), FROM_TASK,
// HAS_TURN, SUPERSEDES.
// Parameters: $namespace.
// Returns: from, edge, to, edges (rows).
CALL () {
  MATCH (a:Memory {namespace: $namespace})-[r]->(b) RETURN a, r, b
  UNION ALL
  MATCH (a:Task {namespace: $namespace})-[r]->(b) RETURN a, r, b
}
RETURN labels(a)[0] AS from, type(r) AS edge, labels(b)[0] AS to, count(*) AS edges
ORDER BY edges DESC
