// Test helper: for each semantic memory, how many turns it derives from.
// Parameters: $namespace. Returns: id, turns.
MATCH (m:Memory {kind: 'semantic'}) WHERE m.namespace = $namespace
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(t:Turn)
RETURN m.id AS id, count(t) AS turns
