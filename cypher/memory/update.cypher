// Updates one memory's editable fields; null parameters leave a field as it is; $clear_valid_until (true) removes
// valid_until instead (null cannot say that).
// Parameters: $id, $namespace, $content, $embedding, $content_hash, $title (the Browser caption), $answer_kinds
// (graphmem.graph.answer_kinds of new content, else null), $tags, $tags_text,
// $confidence, $importance, $valid_from, $valid_until, $clear_valid_until, $writer, $trust (provenance: the editor
// and the trust it leaves; null keeps them), $quarantine ('quarantined' when the screen flagged new content, else
// null) with $metadata_json (the metadata with the screen's reason, else null), $at. Returns: memory (map, no
// embedding).
// The embedding is stored as 32-bit floats, as in memory/create.
MATCH (m:Memory {namespace: $namespace, id: $id}) WHERE m.status <> 'deleted'
SET m.content = coalesce($content, m.content),
    m.content_hash = coalesce($content_hash, m.content_hash),
    m.title = coalesce($title, m.title),
    m.answer_kinds = coalesce($answer_kinds, m.answer_kinds),
    m.tags = coalesce($tags, m.tags),
    m.tags_text = coalesce($tags_text, m.tags_text),
    m.confidence = coalesce($confidence, m.confidence),
    m.importance = coalesce($importance, m.importance),
    m.valid_from = coalesce($valid_from, m.valid_from),
    m.valid_until = CASE WHEN $clear_valid_until THEN null ELSE coalesce($valid_until, m.valid_until) END,
    m.writer = coalesce($writer, m.writer),
    m.trust = coalesce($trust, m.trust),
    m.status = coalesce($quarantine, m.status),
    m.metadata_json = coalesce($metadata_json, m.metadata_json),
    m.updated_at = $at,
    m._resign = true
WITH m
CALL (m) {
  WITH m WHERE $embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', $embedding)
}
RETURN m {.*, embedding: null} AS memory
