// Consolidation: the survivor of a merge takes over its members' knowledge edges to and from other memories
// (every type but MERGED_INTO and SIMILAR_TO, which inherit_similar handles), with their properties and
// `inherited_from` (the member's id). An edge the survivor already has keeps its properties, and the higher
// weight. Edges between members, or to the survivor, are not copied (they would be self-edges). The members
// keep their own edges: nothing is deleted.
// Parameters: $namespace, $survivor (id), $members (ids of the members archived into it), $at.
// Returns: edges (count merged).
MATCH (s:Memory {namespace: $namespace, id: $survivor})
UNWIND $members AS member_id
MATCH (m:Memory {namespace: $namespace, id: member_id})
CALL (s, m) {
  MATCH (m)-[r]->(o:Memory)
  WHERE o.namespace = $namespace AND o <> s AND NOT o.id IN $members AND NOT type(r) IN ['MERGED_INTO', 'SIMILAR_TO']
  MERGE (s)-[n:$(type(r))]->(o)
  ON CREATE SET n += properties(r), n.inherited_from = m.id, n.inherited_at = $at
  ON MATCH SET n.weight = CASE WHEN coalesce(r.weight, 0.0) > coalesce(n.weight, 0.0) THEN r.weight ELSE n.weight END
  RETURN count(n) AS outgoing
}
CALL (s, m) {
  MATCH (o:Memory)-[r]->(m)
  WHERE o.namespace = $namespace AND o <> s AND NOT o.id IN $members AND NOT type(r) IN ['MERGED_INTO', 'SIMILAR_TO']
  MERGE (o)-[n:$(type(r))]->(s)
  ON CREATE SET n += properties(r), n.inherited_from = m.id, n.inherited_at = $at
  ON MATCH SET n.weight = CASE WHEN coalesce(r.weight, 0.0) > coalesce(n.weight, 0.0) THEN r.weight ELSE n.weight END
  RETURN count(n) AS incoming
}
RETURN sum(outgoing + incoming) AS edges
