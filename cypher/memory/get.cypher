// One memory by id within namespaces.
// Parameters: $id, $namespaces (list). Returns: memory (map, no embedding).
MATCH (m:Memory {id: $id})
WHERE m.namespace IN $namespaces
RETURN m {.*, embedding: null} AS memory
