// Creates or updates typed, weighted edges between memories of one namespace.
// The type comes from the closed vocabulary (checked by the service) as a dynamic type.
// Parameters: $rows ({source_id, target_id, type, weight, confidence, source, at}), $namespace.
// Returns: source_id, target_id, type, created.
UNWIND $rows AS row
MATCH (a:Memory {id: row.source_id}) WHERE a.namespace = $namespace
MATCH (b:Memory {id: row.target_id}) WHERE b.namespace = $namespace
MERGE (a)-[r:$(row.type)]->(b)
ON CREATE SET r.created_at = row.at, r._new = true
SET r.weight = row.weight, r.confidence = row.confidence, r.source = row.source, r.updated_at = row.at
WITH a, b, r, coalesce(r._new, false) AS created
REMOVE r._new
RETURN a.id AS source_id, b.id AS target_id, type(r) AS type, created
