// Removes working memories whose time is up.
// Parameters: $now, $limit. Returns: swept (count).
MATCH (m:Memory) WHERE m.kind = 'working' AND m.expires_at IS NOT NULL AND m.expires_at <= $now
WITH m LIMIT $limit
DETACH DELETE m
RETURN count(m) AS swept
