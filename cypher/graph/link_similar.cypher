// Graph construction: (new memory)-[:SIMILAR_TO {weight: cosine}]->(older memory of the same namespace); an edge
// between the two in either direction is kept as it is (so rebuilding the graph adds no reverse copy).
// Parameters: $rows ({memory_id, namespace, target_id, weight, at}). Returns: links (count).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MATCH (o:Memory {namespace: row.namespace, id: row.target_id}) WHERE o <> m
MERGE (m)-[r:SIMILAR_TO]-(o)
ON CREATE SET r.weight = row.weight, r.created_at = datetime(row.at), r.source = 'write'
RETURN count(r) AS links
