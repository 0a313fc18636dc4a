// Creates memories from rows; a (namespace, id) that exists already is left as it is. MERGE on both properties
// takes the memory_key constraint's lock, so of two concurrent writers of one id exactly one creates it.
// Parameters: $rows (maps from Memory.to_row, with the Browser caption `title` and the `answer_kinds` the search
// reads: graphmem.graph.answer_kinds; the store signs each row, as the statement sets row.signature_key:
// graphmem.store.store.signs_rows). Returns: id, created (bool).
// The embedding is stored as 32-bit floats (db.create.setNodeVectorProperty; SET would store 64-bit): half the
// bytes to read when a search computes a candidate's cosine, half the store. The vector index holds 32-bit
// floats anyway, so no search result changes beyond the seventh decimal of a cosine.
// Times arrive as ISO-8601 text and are parsed here (graphmem.store.store.TEXT_TIMES: packing Python datetimes is
// the driver's slowest work on the bulk write path).
UNWIND $rows AS row
MERGE (m:Memory {namespace: row.namespace, id: row.id})
ON CREATE SET m.kind = row.kind, m.content = row.content,
  m.confidence = row.confidence, m.importance = row.importance,
  m.access_count = row.access_count, m.last_accessed_at = datetime(row.last_accessed_at),
  m.created_at = datetime(row.created_at), m.updated_at = datetime(row.updated_at),
  m.valid_from = datetime(row.valid_from), m.valid_until = datetime(row.valid_until),
  m.expires_at = datetime(row.expires_at), m.status = row.status,
  m.tags = row.tags, m.tags_text = row.tags_text, m.source = row.source, m.sources = row.sources,
  m.writer = row.writer, m.trust = row.trust,
  m.content_hash = row.content_hash, m.title = row.title, m.answer_kinds = row.answer_kinds, m.signature = row.signature, m.signature_key = row.signature_key, m.metadata_json = row.metadata_json,
  m._new = true
WITH m, row, coalesce(m._new, false) AS created
REMOVE m._new
WITH m, row, created
CALL (m, row, created) {
  WITH m, row WHERE created AND row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
}
RETURN m.id AS id, created
