// Evaluation: access counts of a namespace back to zero, so that the first pass over the questions starts from
// an unused memory (as a new agent's would).
// Parameters: $namespace. Returns: reset (count).
MATCH (m:Memory) WHERE m.namespace = $namespace AND (m.access_count > 0 OR m.last_accessed_at IS NOT NULL)
SET m.access_count = 0, m.last_accessed_at = null
RETURN count(m) AS reset
