// Points memories at the entities they are about (entities merged per namespace; the memory is matched in the
// row's namespace, so an edge never crosses namespaces).
// Parameters: $rows ({memory_id, namespace, name, kind (or null: 'unknown'), at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MERGE (e:Entity {namespace: row.namespace, name: row.name})
ON CREATE SET e.kind = coalesce(row.kind, 'unknown'), e.created_at = row.at
MERGE (m)-[:ABOUT]->(e)
RETURN count(*) AS links
