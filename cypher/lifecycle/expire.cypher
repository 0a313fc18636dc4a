// Life cycle sweep, one page: removes the namespace's memories whose expiry has passed (every read treats them as
// gone already), with the entities only they were ABOUT (as memory/purge does). The page is the next $limit
// memories after the id $after, in id order; with $apply false nothing is removed (the dry run counts, the
// entities too: those only this page's memories, and $gone, are ABOUT).
// Parameters: $namespace, $now, $after ('' for the first page), $limit, $apply, $gone (a dry run's
// memories removed by its earlier pages and steps; [] when applied: they are gone).
// Returns: ids (the page's memories, in id order), entities (how many entities were removed).
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.expires_at <= $now AND m.id > $after
WITH m ORDER BY m.id LIMIT $limit
OPTIONAL MATCH (m)-[:ABOUT]->(e:Entity)
WITH collect(DISTINCT m) AS ms, collect(DISTINCT e) AS es
WITH ms, [x IN ms | x.id] AS ids,
     [e IN es WHERE NOT EXISTS { (e)<-[:ABOUT]-(o:Memory) WHERE NOT o IN ms AND NOT o.id IN $gone }] AS orphans
CALL (ms) {
  WITH ms WHERE $apply
  UNWIND ms AS m
  DETACH DELETE m
}
CALL (orphans) {
  WITH orphans WHERE $apply
  UNWIND orphans AS e
  DETACH DELETE e
}
RETURN ids, size(orphans) AS entities
