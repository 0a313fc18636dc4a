// Element ids of memories, to start the expansion from.
// Parameters: $ids. Returns: id, key, degree.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, elementId(m) AS key, COUNT { (m)--() } AS degree
