// Test helper: what an imported Graphiti group looks like in graphmem: its entities (with their kinds), the FOLLOWS
// edges, and per fact its SUPERSEDES edges, superseded_by, entities (ABOUT) and the memories it is DERIVED_FROM.
// Parameters: $namespace. Returns: what, name, kind, id, n, superseded_by, supersedes, about, derived.
MATCH (e:Entity {namespace: $namespace})
RETURN 'entity' AS what, e.name AS name, e.kind AS kind, null AS id, null AS n, null AS superseded_by,
       [] AS supersedes, [] AS about, [] AS derived
UNION ALL
RETURN 'follows' AS what, null AS name, null AS kind, null AS id,
       COUNT { (:Memory {namespace: $namespace})-[:FOLLOWS]->(:Memory) } AS n, null AS superseded_by,
       [] AS supersedes, [] AS about, [] AS derived
UNION ALL
MATCH (m:Memory {namespace: $namespace}) WHERE m.source = 'graphiti:fact'
RETURN 'fact' AS what, null AS name, null AS kind, m.id AS id, null AS n, m.superseded_by AS superseded_by,
       [(m)-[:SUPERSEDES]->(o:Memory) | o.id] AS supersedes, [(m)-[:ABOUT]->(x:Entity) | x.name] AS about,
       [(m)-[:DERIVED_FROM]->(d:Memory) | d.id] AS derived
