// Tests: a memory as a graphmem from before answer kinds wrote it (no property). Parameters: $namespace, $id.
// Returns: id.
MATCH (m:Memory {namespace: $namespace, id: $id})
REMOVE m.answer_kinds
RETURN m.id AS id
