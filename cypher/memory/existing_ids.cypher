// Which memory ids exist already in the namespace (ids of other namespaces are none of its business).
// Parameters: $ids, $namespace. Returns: id.
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id})
RETURN m.id AS id
