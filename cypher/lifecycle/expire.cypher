// Life cycle sweep, one page: removes the namespace's memories whose expiry has passed (every read treats them as
// gone already), with the entities only they were ABOUT (as memory/purge does). The page is the next $limit
// memories after the id $after, in id order; with $apply false nothing is removed (the dry run counts).
// Parameters: $namespace, $now, $after ('' for the first page), $limit, $apply.
// Returns: ids (the page's memories, in id order), entities (how many entities were removed).
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.expires_at <= $now AND m.id > $after
WITH m ORDER BY m.id LIMIT $limit
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH collect(DISTINCT m) AS ms, collect(DISTINCT e) AS es
WITH ms, es, [x IN ms | x.id] AS ids
CALL (ms) {
  WITH ms WHERE $apply
  UNWIND ms AS m
  DETACH DELETE m
}
WITH ids, [e IN es WHERE $apply AND NOT EXISTS { (e)<-[:ABOUT]-(:Memory) }] AS orphans
CALL (orphans) {
  UNWIND orphans AS e
  DETACH DELETE e
}
RETURN ids, size(orphans) AS entities
