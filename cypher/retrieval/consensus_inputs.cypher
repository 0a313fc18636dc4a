// What the consensus stage (graphmem.retrieval.consensus) judges the results of a search by: each memory's
// embedding and the names of the entities it is ABOUT (its subjects), hubs left out: an entity more than
// $max_degree memories are ABOUT (null: no limit; the degree is read from the count store, no edge is scanned).
// Parameters: $ids, $namespaces, $max_degree. Returns: id, embedding, subjects (lowercase names).
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.namespace IN $namespaces
RETURN m.id AS id, m.embedding AS embedding,
       [(m)-[:ABOUT]->(e:Entity) WHERE $max_degree IS NULL OR COUNT { (e)<-[:ABOUT]-() } <= $max_degree
        | toLower(e.name)] AS subjects
