// Title: A task, its turns and what reflection wrote
// Shows: one task ($task: its id or title; null: the task started last), its turns, the memories that came
// from it, and the facts and lessons derived from its turns (DERIVED_FROM).
// Parameters: $namespace, $task.
// Returns: p (paths: a graph).
MATCH (t:Task {namespace: $namespace})
WHERE $task IS NULL OR t.id = $task OR t.title = $task
WITH t ORDER BY t.started_at DESC LIMIT 1
CALL (t) {
  MATCH p = (t)-[:HAS_TURN]->(:Turn) RETURN p
  UNION
  MATCH p = (t)<-[:FROM_TASK]-(:Memory) RETURN p
  UNION
  MATCH p = (t)-[:HAS_TURN]->(:Turn)<-[:DERIVED_FROM]-(:Memory) RETURN p
  UNION
  MATCH p = (t)<-[:FROM_TASK]-(:Memory)<-[:DERIVED_FROM]-(:Memory) RETURN p
}
RETURN p
