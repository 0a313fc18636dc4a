// Test only: fails (division by zero) when memory $id of $namespace is archived, that is inside the transaction
// that merges its cluster, after that merge's own statements ran; passes in every other transaction.
// Parameters: $namespace, $id. Returns: ok.
OPTIONAL MATCH (m:Memory {namespace: $namespace, id: $id})
RETURN 1 / CASE WHEN m.status = 'archived' THEN 0 ELSE 1 END AS ok
