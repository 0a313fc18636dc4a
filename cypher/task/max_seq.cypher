// The next free turn number of a task. Parameters: $id, $namespace. Returns: next_seq.
MATCH (t:Task {id: $id}) WHERE t.namespace = $namespace
OPTIONAL MATCH (t)-[:HAS_TURN]->(u:Turn)
RETURN coalesce(max(u.seq), -1) + 1 AS next_seq, t.status AS status
