// First statement of an append to a task's log: takes the task's write lock (held to commit, so concurrent appends
// to one task take turns instead of numbering their turns alike), then reads its next free turn number and status.
// Parameters: $id, $namespace. Returns: next_seq, status (no row: no such task).
MATCH (t:Task {namespace: $namespace, id: $id})
SET t.turns_lock = true
REMOVE t.turns_lock
WITH t
OPTIONAL MATCH (t)-[:HAS_TURN]->(u:Turn)
RETURN coalesce(max(u.seq), -1) + 1 AS next_seq, t.status AS status
