// The reflection queue's size and the time its oldest task was queued.
// Parameters: $namespaces (list, or null for all).
// Returns: pending (count), oldest (datetime or null).
MATCH (t:Task) WHERE t.reflection_status = 'pending' AND ($namespaces IS NULL OR t.namespace IN $namespaces)
RETURN count(t) AS pending, min(coalesce(t.reflection_queued_at, t.ended_at)) AS oldest
