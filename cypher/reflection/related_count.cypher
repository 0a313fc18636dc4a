// How many memories reflection/related could return at most (to know when asking the vector index for more rows
// cannot find more). Parameters: $namespace, $kinds, $exclude (ids). Returns: n.
MATCH (m:Memory) WHERE m.namespace = $namespace AND m.status = 'active' AND m.kind IN $kinds
  AND NOT m.id IN $exclude
RETURN count(m) AS n
