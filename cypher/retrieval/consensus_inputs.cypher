// What the consensus stage (graphmem.retrieval.consensus) judges the results of a search by: each memory's
// embedding and the names of the entities it is ABOUT (its subjects).
// Parameters: $ids, $namespaces. Returns: id, embedding, subjects (lowercase names).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.namespace IN $namespaces
RETURN m.id AS id, m.embedding AS embedding, [(m)-[:ABOUT]->(e:Entity) | toLower(e.name)] AS subjects
