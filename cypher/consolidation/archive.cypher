// Consolidation: the members of a merge become `archived` (never deleted), with a MERGED_INTO edge to the survivor
// and `merged_into` (its id); their validity ends at the merge unless it ended before (so `as_of` a later time
// answers with the survivor, an earlier one with them). Only a member still active and with the content it had
// when the merge was planned is archived: the caller compares the ids returned with those it gave and rolls the
// cluster back when one is missing (it changed since). Marks each changed member for re-signing.
// Parameters: $namespace, $survivor (id), $members ({id, content_hash}), $at.
// Returns: id (of each member archived).
MATCH (s:Memory {namespace: $namespace, id: $survivor}) WHERE s.status = 'active'
UNWIND $members AS row
MATCH (m:Memory {namespace: $namespace, id: row.id})
WHERE m <> s AND m.status = 'active' AND m.content_hash = row.content_hash
SET m.status = 'archived', m.valid_until = coalesce(m.valid_until, $at), m.merged_into = s.id, m.updated_at = $at,
    m._resign = true
MERGE (m)-[e:MERGED_INTO]->(s)
ON CREATE SET e.created_at = $at, e.weight = 1.0, e.source = 'consolidation'
RETURN m.id AS id
