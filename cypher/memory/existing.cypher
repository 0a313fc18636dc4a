// Which of the given ids exist in the namespace, and as what.
// Parameters: $ids, $namespace. Returns: id, label ('Memory' | 'Turn' | 'Task'), status.
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Memory {namespace: $namespace, id: id}) RETURN n, 'Memory' AS label
  UNION
  MATCH (n:Turn {namespace: $namespace, id: id}) RETURN n, 'Turn' AS label
  UNION
  MATCH (n:Task {namespace: $namespace, id: id}) RETURN n, 'Task' AS label
}
RETURN n.id AS id, label, n.status AS status
