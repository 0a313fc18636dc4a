// Test helper (until reflection writes it): marks $old superseded by $new at $at.
// Parameters: $old, $new, $at. Returns: n.
MATCH (o:Memory {id: $old}), (n:Memory {id: $new})
SET o.status = 'superseded', o.valid_until = $at, n.valid_from = $at, o._resign = true, n._resign = true
MERGE (n)-[r:SUPERSEDES]->(o) SET r.weight = 1.0
RETURN count(r) AS n
