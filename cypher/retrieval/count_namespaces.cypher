// How many memories of the given namespaces and statuses exist (to know when a filtered vector query has
// found all it can). Parameters: $namespaces, $statuses. Returns: n.
MATCH (m:Memory) WHERE m.namespace IN $namespaces AND m.status IN $statuses
RETURN count(m) AS n
