// Rebuilding the graph of memories written before graph construction: a page of active memories of a namespace,
// by id order, with what the construction reads.
// Parameters: $namespace, $after (id or ''), $limit.
// Returns: id, namespace, kind, content, created_at, embedding (or null), task_id (or null), entities (names),
// answer_kinds (as stored, or null).
MATCH (m:Memory) WHERE m.namespace = $namespace AND m.id > $after AND m.status = 'active'
OPTIONAL MATCH (m)-[:FROM_TASK]->(t:Task)
WITH m, head(collect(t.id)) AS task_id
RETURN m.id AS id, m.namespace AS namespace, m.kind AS kind, m.content AS content, m.created_at AS created_at,
       m.embedding AS embedding, task_id, [(m)-[:ABOUT]->(e:Entity) | e.name] AS entities,
       m.answer_kinds AS answer_kinds
ORDER BY m.id
LIMIT $limit
