// Points memories at the entities they are about (entities merged per namespace).
// Parameters: $rows ({memory_id, namespace, name, kind (or null: 'unknown'), at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
MERGE (e:Entity {namespace: row.namespace, name: row.name})
ON CREATE SET e.kind = coalesce(row.kind, 'unknown'), e.created_at = row.at
MERGE (m)-[:ABOUT]->(e)
RETURN count(*) AS links
