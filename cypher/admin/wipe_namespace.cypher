// Deletes every node of one namespace with its edges (tests; purge of a whole agent).
// Parameters: $namespace. Returns: deleted (count of nodes).
MATCH (n) WHERE n.namespace = $namespace
DETACH DELETE n
RETURN count(n) AS deleted
