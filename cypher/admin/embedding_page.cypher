// A page of memories (all namespaces and statuses) to re-embed, by id order.
// Parameters: $after (id or ''), $limit. Returns: id, content.
MATCH (m:Memory) WHERE m.id > $after
RETURN m.id AS id, m.content AS content
ORDER BY m.id
LIMIT $limit
