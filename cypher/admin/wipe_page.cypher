// One page of wiping a namespace (graphmem db wipe-namespace): up to $limit of its nodes (memories, entities,
// tasks, turns, maintenance jobs) deleted with their edges, in a transaction of its own, so that a large
// namespace never needs one huge transaction. admin/wipe_namespace then removes what is left with its lock nodes.
// Parameters: $namespace, $limit. Returns: deleted (count of nodes; 0 when none is left).
MATCH (n) WHERE n.namespace = $namespace
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(n) AS deleted
