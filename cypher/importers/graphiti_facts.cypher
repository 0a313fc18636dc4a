// Graphiti source (read only): one page of a group's facts (RELATES_TO edges between entities), in uuid order.
// Times are epoch milliseconds, null when graphiti left them unset.
// Parameters: $group_id, $after (uuid of the last row of the previous page; '' for the first), $limit.
// Returns: uuid, name, fact, source (entity uuid), target (entity uuid), episodes (uuids), valid_at, invalid_at,
// expired_at, created_at.
MATCH (s:Entity)-[e:RELATES_TO]->(t:Entity) WHERE coalesce(e.group_id, '') = $group_id AND e.uuid > $after
WITH s, e, t ORDER BY e.uuid LIMIT $limit
RETURN e.uuid AS uuid, e.name AS name, e.fact AS fact, s.uuid AS source, t.uuid AS target,
       coalesce(e.episodes, []) AS episodes,
       datetime(e.valid_at).epochMillis AS valid_at, datetime(e.invalid_at).epochMillis AS invalid_at,
       datetime(e.expired_at).epochMillis AS expired_at, datetime(e.created_at).epochMillis AS created_at
ORDER BY uuid
