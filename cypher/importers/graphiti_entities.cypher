// Graphiti source (read only): one page of a group's entities (Entity nodes with a group_id), in uuid order.
// Parameters: $group_id, $after (uuid of the last row of the previous page; '' for the first), $limit.
// Returns: uuid, name, summary, labels (the node's labels besides Entity), created_at (epoch ms).
MATCH (n:Entity) WHERE n.group_id = $group_id AND n.uuid > $after
WITH n ORDER BY n.uuid LIMIT $limit
RETURN n.uuid AS uuid, n.name AS name, n.summary AS summary,
       [label IN labels(n) WHERE label <> 'Entity'] AS labels, datetime(n.created_at).epochMillis AS created_at
ORDER BY uuid
