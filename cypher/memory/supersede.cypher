// Marks memories replaced by newer facts: status superseded, valid_until set, and a SUPERSEDES edge from the
// new memory to the old one. Nothing is deleted. A memory superseded before keeps its first valid_until.
// Run by reflection, and by relate for each SUPERSEDES edge it writes (after relation/relate, in its transaction).
// Parameters: $rows ({new, old, at}), $namespace, $source (the edge's source when this creates it).
// Returns: old, new, changed (bool: was active before).
UNWIND $rows AS row
MATCH (n:Memory {id: row.new}) WHERE n.namespace = $namespace
MATCH (o:Memory {id: row.old}) WHERE o.namespace = $namespace AND o.status IN ['active', 'superseded']
WITH n, o, row, o.status = 'active' AS changed
SET o.status = 'superseded', o.valid_until = coalesce(o.valid_until, row.at), o.superseded_by = n.id,
    o.updated_at = CASE WHEN changed THEN row.at ELSE o.updated_at END,
    n.valid_from = coalesce(n.valid_from, row.at), o._resign = true, n._resign = true
MERGE (n)-[r:SUPERSEDES]->(o)
ON CREATE SET r.created_at = row.at, r.weight = 1.0, r.source = $source
RETURN o.id AS old, n.id AS new, changed
