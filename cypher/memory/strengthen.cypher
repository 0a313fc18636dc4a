// Reinforces existing memories that a near-duplicate write hit: confidence moves towards 1,
// the reinforcement is counted and the new provenance appended.
// Parameters: $rows ({id, alpha, source, at}). Returns: id, confidence.
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
SET m.confidence = m.confidence + (1.0 - m.confidence) * row.alpha,
    m.reinforced_count = coalesce(m.reinforced_count, 0) + 1,
    m.sources = CASE WHEN row.source IS NULL OR row.source IN coalesce(m.sources, []) THEN coalesce(m.sources, [])
                     ELSE coalesce(m.sources, []) + row.source END,
    m.updated_at = row.at
RETURN m.id AS id, m.confidence AS confidence
