// Which of the given ids exist in the namespace, and as what.
// Parameters: $ids, $namespace. Returns: id, label ('Memory' | 'Turn' | 'Task'), status, trust (a memory's, as
// stored: null for none, which counts as 1; relate compares it before a SUPERSEDES edge).
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Memory {namespace: $namespace, id: id}) RETURN n, 'Memory' AS label
  UNION
  MATCH (n:Turn {namespace: $namespace, id: id}) RETURN n, 'Turn' AS label
  UNION
  MATCH (n:Task {namespace: $namespace, id: id}) RETURN n, 'Task' AS label
}
RETURN n.id AS id, label, n.status AS status, n.trust AS trust
