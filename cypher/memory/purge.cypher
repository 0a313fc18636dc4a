// Removes soft-deleted memories for good (an explicit, separate step), and the entities only they were ABOUT (an
// entity found in a purged memory's content must not outlive it).
// Parameters: $ids, $namespace. Returns: purged (count of memories).
MATCH (m:Memory) WHERE m.id IN $ids AND m.namespace = $namespace AND m.status = 'deleted'
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH collect(DISTINCT m) AS ms, collect(DISTINCT e) AS es
CALL (ms) {
  UNWIND ms AS m
  DETACH DELETE m
}
CALL (es) {
  UNWIND es AS e
  WITH e WHERE NOT EXISTS { (e)<-[:ABOUT]-(:Memory) }
  DETACH DELETE e
}
RETURN size(ms) AS purged
