// Evaluation: every draft id the namespace's memories account for: their own ids and the ids of the drafts
// that reinforced them (strengthen tokens). An import plan was fully applied when all its ids are here.
// Parameters: $namespace. Returns: ids (list).
MATCH (m:Memory) WHERE m.namespace = $namespace
UNWIND [m.id] + coalesce(m.reinforced_by, []) AS id
RETURN collect(DISTINCT id) AS ids
