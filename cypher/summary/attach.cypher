// A task's summary: the memory is labelled :Summary and linked FROM_TASK, and the task's other active summaries are
// superseded by it (status superseded, valid_until set, a SUPERSEDES edge), so a task has one active summary and the
// earlier ones stay as history. Runs in the write's transaction, after memory/create.
// Parameters: $rows ({memory_id, namespace, task_id, at}). Returns: id, task_id, superseded (ids).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})
MATCH (t:Task {namespace: row.namespace, id: row.task_id})
SET m:Summary
MERGE (m)-[f:FROM_TASK]->(t)
ON CREATE SET f.created_at = row.at
WITH m, t, row
CALL (m, t, row) {
  OPTIONAL MATCH (old:Summary)-[:FROM_TASK]->(t)
  WHERE old <> m AND old.status = 'active' AND m.status = 'active'
  WITH old WHERE old IS NOT NULL
  SET old.status = 'superseded', old.valid_until = coalesce(old.valid_until, row.at), old.superseded_by = m.id,
      old.updated_at = row.at, old._resign = true
  MERGE (m)-[r:SUPERSEDES]->(old)
  ON CREATE SET r.created_at = row.at, r.weight = 1.0, r.source = 'summary'
  RETURN collect(old.id) AS superseded
}
RETURN m.id AS id, t.id AS task_id, superseded
