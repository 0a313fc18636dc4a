// Which memory ids exist already in the namespace (ids of other namespaces are none of its business).
// Parameters: $ids, $namespace. Returns: id, content_hash (what a write of the same id must say to be the same).
UNWIND $ids AS id
MATCH (m:Memory {namespace: $namespace, id: id})
RETURN m.id AS id, m.content_hash AS content_hash
