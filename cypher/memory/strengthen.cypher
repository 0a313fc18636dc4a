// Reinforces existing memories that a near-duplicate write hit: confidence moves towards 1, the
// reinforcement is counted and the new provenance appended. A row whose token (the repeat's own id) was
// applied before changes nothing, so re-importing the same data is a no-op.
// Parameters: $rows ({id, namespace, alpha, source, token, at}). Returns: id, confidence.
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
WITH m, row, (row.token IS NULL OR NOT row.token IN coalesce(m.reinforced_by, [])) AS fresh
SET m.confidence = CASE WHEN fresh THEN m.confidence + (1.0 - m.confidence) * row.alpha ELSE m.confidence END,
    m.reinforced_count = coalesce(m.reinforced_count, 0) + CASE WHEN fresh THEN 1 ELSE 0 END,
    m.reinforced_by = CASE WHEN fresh AND row.token IS NOT NULL THEN coalesce(m.reinforced_by, []) + row.token
                           ELSE m.reinforced_by END,
    m.sources = CASE WHEN row.source IS NULL OR row.source IN coalesce(m.sources, []) THEN coalesce(m.sources, [])
                     ELSE coalesce(m.sources, []) + row.source END,
    m.updated_at = CASE WHEN fresh THEN row.at ELSE m.updated_at END,
    m._resign = true
RETURN m.id AS id, m.confidence AS confidence
