// Title: Overview: kinds and statuses
// Shows: how many memories of each kind (working, episodic, semantic, lesson) are in each status (active,
// superseded, archived, deleted, quarantined) in $namespace.
// Parameters: $namespace.
// Returns: kind, status, memories (rows).
MATCH (m:Memory {namespace: $namespace})
RETURN m.kind AS kind, m.status AS status, count(*) AS memories
ORDER BY kind, status
