// Consolidation: the survivor of a merge takes over its members' provenance and entities: DERIVED_FROM the turns
// they came from, FROM_TASK their tasks, ABOUT their entities (same namespace only), with the edges' properties
// and `inherited_from`. Provenance of the survivor = the union of the members'. The members keep theirs.
// Parameters: $namespace, $survivor (id), $members (ids of the members archived into it), $at.
// Returns: links (count merged).
MATCH (s:Memory {namespace: $namespace, id: $survivor})
UNWIND $members AS member_id
MATCH (m:Memory {namespace: $namespace, id: member_id})-[r:DERIVED_FROM|FROM_TASK|ABOUT]->(x)
WHERE (x:Turn OR x:Task OR x:Entity) AND x.namespace = $namespace
MERGE (s)-[n:$(type(r))]->(x)
ON CREATE SET n += properties(r), n.inherited_from = m.id, n.inherited_at = $at
RETURN count(n) AS links
