// Every entity of a namespace with its kind and the ids of the memories ABOUT it.
MATCH (e:Entity {namespace: $namespace})
OPTIONAL MATCH (m:Memory)-[:ABOUT]->(e)
WITH e, m ORDER BY m.id
RETURN e.name AS name, e.kind AS kind, collect(m.id) AS memories
ORDER BY name
