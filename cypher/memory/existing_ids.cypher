// Which memory ids exist already, in any namespace. Parameters: $ids. Returns: id, namespace.
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id, m.namespace AS namespace
