// Test helper: what a reflection wrote, as a person would see it in Neo4j Browser: each memory of the task
// with its outgoing edges. Parameters: $namespace, $task_id.
// Returns: kind, content, status, edge (type or null), target (content or entity name).
MATCH (m:Memory)-[:FROM_TASK]->(t:Task {id: $task_id}) WHERE t.namespace = $namespace
OPTIONAL MATCH (m)-[r]->(x) WHERE type(r) <> 'FROM_TASK'
RETURN m.kind AS kind, m.content AS content, m.status AS status, type(r) AS edge,
       coalesce(x.content, x.name) AS target
ORDER BY kind, content, edge
