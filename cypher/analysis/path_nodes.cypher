// What the non-memory ids on search paths are (graphmem.analysis.search_graph): an entity's name, a turn's or a
// task's id, within the searched namespaces. Memories on paths are read (and verified) with memory/get_many.
// Parameters: $ids (list), $namespaces (list). Returns: id, label, text per node found.
UNWIND $ids AS id
CALL (id) {
  MATCH (e:Entity {name: id}) WHERE e.namespace IN $namespaces
  RETURN 'Entity' AS label, e.name AS text LIMIT 1
  UNION
  MATCH (u:Turn {id: id}) WHERE u.namespace IN $namespaces
  RETURN 'Turn' AS label, u.content AS text LIMIT 1
  UNION
  MATCH (t:Task {id: id}) WHERE t.namespace IN $namespaces
  RETURN 'Task' AS label, t.title AS text LIMIT 1
}
RETURN id, label, text
