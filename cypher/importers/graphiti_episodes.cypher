// Graphiti source (read only): one page of a group's episodes (Episodic nodes), in uuid order, with the uuids of
// the entities each MENTIONS. Times are epoch milliseconds (graphiti stores DateTime values or ISO strings).
// Parameters: $group_id, $after (uuid of the last row of the previous page; '' for the first), $limit.
// Returns: uuid, name, content, source, source_description, valid_at, created_at, mentions (list of uuids).
MATCH (n:Episodic) WHERE coalesce(n.group_id, '') = $group_id AND n.uuid > $after
WITH n ORDER BY n.uuid LIMIT $limit
RETURN n.uuid AS uuid, n.name AS name, n.content AS content, n.source AS source,
       n.source_description AS source_description,
       datetime(n.valid_at).epochMillis AS valid_at, datetime(n.created_at).epochMillis AS created_at,
       [(n)-[:MENTIONS]->(e:Entity) | e.uuid] AS mentions
ORDER BY uuid
