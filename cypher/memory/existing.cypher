// Which of the given ids exist in the namespace, and as what.
// Parameters: $ids, $namespace. Returns: id, label ('Memory' | 'Turn' | 'Task'), status.
UNWIND $ids AS id
MATCH (n {id: id}) WHERE (n:Memory OR n:Turn OR n:Task) AND n.namespace = $namespace
RETURN n.id AS id, CASE WHEN n:Memory THEN 'Memory' WHEN n:Turn THEN 'Turn' ELSE 'Task' END AS label,
       n.status AS status
