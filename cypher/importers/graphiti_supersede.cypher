// Target: marks imported facts that graphiti invalidated or expired as superseded, keeping their validity
// (valid_from/valid_until are not touched), and draws SUPERSEDES from the fact that replaced each one where the
// import could name it ($rows.new, else null). A fact superseded before is left as it is (a re-run changes nothing).
// Parameters: $namespace, $rows ({old, new (or null), at}). Returns: old, new (null when none), changed (bool).
UNWIND $rows AS row
MATCH (o:Memory {namespace: $namespace, id: row.old}) WHERE o.status IN ['active', 'superseded']
WITH o, row, o.status = 'active' AS changed
OPTIONAL MATCH (n:Memory {namespace: $namespace, id: row.new}) WHERE n <> o
SET o.status = 'superseded', o.superseded_by = coalesce(n.id, o.superseded_by),
    o.updated_at = CASE WHEN changed THEN row.at ELSE o.updated_at END,
    o._resign = CASE WHEN changed THEN true ELSE null END
FOREACH (_ IN CASE WHEN n IS NULL THEN [] ELSE [1] END |
  MERGE (n)-[r:SUPERSEDES]->(o)
  ON CREATE SET r.created_at = row.at, r.weight = 1.0, r.source = 'graphiti-import')
RETURN o.id AS old, n.id AS new, changed
