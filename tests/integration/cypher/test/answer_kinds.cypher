// Tests: the stored answer kinds of a namespace's memories. Parameters: $namespace. Returns: id, answer_kinds.
MATCH (m:Memory) WHERE m.namespace = $namespace
RETURN m.id AS id, m.answer_kinds AS answer_kinds
