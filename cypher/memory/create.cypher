// Creates memories from rows; an id that exists already is left as it is.
// Parameters: $rows (maps from Memory.to_row). Returns: id, created (bool).
UNWIND $rows AS row
MERGE (m:Memory {id: row.id})
ON CREATE SET m.namespace = row.namespace, m.kind = row.kind, m.content = row.content,
  m.embedding = row.embedding, m.confidence = row.confidence, m.importance = row.importance,
  m.access_count = row.access_count, m.last_accessed_at = row.last_accessed_at,
  m.created_at = row.created_at, m.updated_at = row.updated_at, m.valid_from = row.valid_from,
  m.valid_until = row.valid_until, m.expires_at = row.expires_at, m.status = row.status,
  m.tags = row.tags, m.tags_text = row.tags_text, m.source = row.source, m.sources = row.sources,
  m.content_hash = row.content_hash, m.signature = row.signature, m.metadata_json = row.metadata_json,
  m._new = true
WITH m, coalesce(m._new, false) AS created
REMOVE m._new
RETURN m.id AS id, created
