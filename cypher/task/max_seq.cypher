// The next free turn number of a task. Parameters: $id, $namespace. Returns: next_seq.
MATCH (t:Task {namespace: $namespace, id: $id})
OPTIONAL MATCH (t)-[:HAS_TURN]->(u:Turn)
RETURN coalesce(max(u.seq), -1) + 1 AS next_seq, t.status AS status
