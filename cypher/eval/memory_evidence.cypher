// Evaluation: the turns each given memory reaches over its provenance (DERIVED_FROM, 1 to 3 edges: a turn
// memory or an observation directly, a memory distilled from memories through them).
// Parameters: $ids (list of memory ids), $namespaces (list). Returns: id, turns (list of Turn ids, maybe empty);
// ids that name no memory of those namespaces return no row. A task summary (:Summary) reaches no turn: it derives
// from its whole session, and counting them all would reward a summary for evidence it does not hold.
UNWIND $ids AS id
MATCH (m:Memory {id: id}) WHERE m.namespace IN $namespaces
OPTIONAL MATCH (m)-[:DERIVED_FROM*1..3]->(t:Turn) WHERE NOT m:Summary
RETURN m.id AS id, collect(DISTINCT t.id) AS turns
