// Graph construction: (new memory)-[:SIMILAR_TO {weight: cosine}]->(older memory of the same namespace); an edge
// between the two in either direction is kept as it is (so rebuilding the graph adds no reverse copy).
// Parameters: $rows ({memory_id, target_id, weight, at}). Returns: links (count).
UNWIND $rows AS row
MATCH (m:Memory {id: row.memory_id})
MATCH (o:Memory {id: row.target_id}) WHERE o.namespace = m.namespace AND o <> m
MERGE (m)-[r:SIMILAR_TO]-(o)
ON CREATE SET r.weight = row.weight, r.created_at = row.at, r.source = 'write'
RETURN count(r) AS links
