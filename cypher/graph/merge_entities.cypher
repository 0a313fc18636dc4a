// Merges entities whose name is not in normal form (written before caller-named entities were normalised: the
// caller's "Caroline" beside the extractor's "caroline") into the entity of the normal name: its ABOUT edges move
// there, an unknown kind takes the other's, and the old node goes. An entity with any edge other than ABOUT (an
// import's MENTIONS or RELATES_TO) is left as it is.
// Parameters: $namespace, $rows ({old, new}). Returns: merged (count), moved (ABOUT edges re-pointed).
UNWIND $rows AS row
MATCH (old:Entity {namespace: $namespace, name: row.old})
WHERE row.new <> row.old AND NOT EXISTS { (old)-[r]-() WHERE type(r) <> 'ABOUT' }
MERGE (new:Entity {namespace: $namespace, name: row.new})
ON CREATE SET new.kind = old.kind, new.created_at = old.created_at
SET new.kind = CASE WHEN new.kind = 'unknown' THEN old.kind ELSE new.kind END
WITH old, new
OPTIONAL MATCH (m:Memory)-[:ABOUT]->(old)
FOREACH (x IN CASE WHEN m IS NULL THEN [] ELSE [m] END | MERGE (x)-[:ABOUT]->(new))
WITH old, count(m) AS moved
DETACH DELETE old
RETURN count(*) AS merged, sum(moved) AS moved
