// Test helper: CREATE (not MERGE) memories, so a duplicate id violates the constraint.
// Parameters: $rows. Returns: id.
UNWIND $rows AS row
CREATE (m:Memory {id: row.id, namespace: row.namespace, kind: row.kind, content: row.content, status: row.status, _resign: true})
RETURN m.id AS id
