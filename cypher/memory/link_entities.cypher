// Points memories at the entities they are about (entities merged per namespace; the memory is matched in the
// row's namespace, so an edge never crosses namespaces). An entity first named by a caller (kind unknown) takes the
// kind the content extractor finds for it later.
// Parameters: $rows ({memory_id, namespace, name, kind (or null: 'unknown'), at}). Returns: links (count).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MERGE (e:Entity {namespace: row.namespace, name: row.name})
ON CREATE SET e.kind = coalesce(row.kind, 'unknown'), e.created_at = datetime(row.at)
ON MATCH SET e.kind = CASE WHEN e.kind = 'unknown' THEN coalesce(row.kind, 'unknown') ELSE e.kind END
MERGE (m)-[:ABOUT]->(e)
RETURN count(*) AS links
