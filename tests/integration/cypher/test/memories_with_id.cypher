// Tests: every memory of one id, in any namespace, with the names of the entities it is ABOUT.
// Parameters: $id. Returns: namespace, content, entities (sorted list of names).
MATCH (m:Memory {id: $id})
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH m, e.name AS name ORDER BY name
RETURN m.namespace AS namespace, m.content AS content, collect(name) AS entities
ORDER BY namespace
