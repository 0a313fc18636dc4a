// Graph construction: (new memory)-[:SIMILAR_TO {weight: cosine}]->(older memory of the same namespace); an edge
// between the two in either direction is kept as it is (so rebuilding the graph adds no reverse copy).
// Parameters: $rows ({memory_id, namespace, target_id, weight, at}). Returns: links (distinct edges merged: a pair
// given both ways is one), created (how many of them are new).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MATCH (o:Memory {namespace: row.namespace, id: row.target_id}) WHERE o <> m
MERGE (m)-[r:SIMILAR_TO]-(o)
ON CREATE SET r.weight = row.weight, r.created_at = datetime(row.at), r.source = 'write', r._new = true
WITH collect(DISTINCT r) AS merged
WITH merged, size([x IN merged WHERE x._new IS NOT NULL]) AS created
FOREACH (x IN merged | REMOVE x._new)
RETURN size(merged) AS links, created
