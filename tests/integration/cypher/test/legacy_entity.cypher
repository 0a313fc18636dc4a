// An entity under a name as callers' entities were stored before normalisation, ABOUT which a memory is.
MATCH (m:Memory {namespace: $namespace, id: $id})
MERGE (e:Entity {namespace: $namespace, name: $name})
ON CREATE SET e.kind = 'unknown', e.created_at = datetime()
MERGE (m)-[:ABOUT]->(e)
RETURN count(*) AS links
