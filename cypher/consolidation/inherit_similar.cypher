// Consolidation: the survivor of a merge takes over its members' SIMILAR_TO edges (computed, undirected in
// meaning): one edge between the survivor and each other memory a member was similar to, in either direction,
// unless the two are linked so already (the higher weight is kept). Edges between members are not copied.
// Parameters: $namespace, $survivor (id), $members (ids of the members archived into it), $at.
// Returns: edges (count merged).
MATCH (s:Memory {namespace: $namespace, id: $survivor})
UNWIND $members AS member_id
MATCH (m:Memory {namespace: $namespace, id: member_id})-[r:SIMILAR_TO]-(o:Memory)
WHERE o.namespace = $namespace AND o <> s AND NOT o.id IN $members
MERGE (s)-[n:SIMILAR_TO]-(o)
ON CREATE SET n.weight = r.weight, n.created_at = $at, n.source = 'consolidation', n.inherited_from = m.id
ON MATCH SET n.weight = CASE WHEN coalesce(r.weight, 0.0) > coalesce(n.weight, 0.0) THEN r.weight ELSE n.weight END
RETURN count(n) AS edges
