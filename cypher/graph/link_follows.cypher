// Graph construction: time order between the episodic memories of a task. Each given memory FOLLOWS the episodic
// memory of its task just before it, and the one just after it (a memory written late, into the middle) FOLLOWS
// it; gap_s is the time between them in seconds. Runs after memory/link_task in the same transaction, so the
// batch's own memories are seen. Task summaries (:Summary) take no part in the time order.
// Parameters: $rows ({memory_id, namespace, at}). Returns: links (count of edges merged).
// The store sends row.at as ISO-8601 text, parsed here (graphmem.store.store.TEXT_TIMES).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.memory_id})-[:FROM_TASK]->(t:Task)
WHERE m.kind = 'episodic' AND m.created_at IS NOT NULL AND NOT m:Summary
CALL (m, t) {
  OPTIONAL MATCH (p:Memory)-[:FROM_TASK]->(t)
  WHERE p.kind = 'episodic' AND p <> m AND NOT p:Summary AND p.created_at IS NOT NULL
    AND (p.created_at < m.created_at OR (p.created_at = m.created_at AND p.id < m.id))
  RETURN p AS before ORDER BY p.created_at DESC, p.id DESC LIMIT 1
}
CALL (m, t) {
  OPTIONAL MATCH (n:Memory)-[:FROM_TASK]->(t)
  WHERE n.kind = 'episodic' AND n <> m AND NOT n:Summary AND n.created_at IS NOT NULL
    AND (n.created_at > m.created_at OR (n.created_at = m.created_at AND n.id > m.id))
  RETURN n AS after ORDER BY n.created_at, n.id LIMIT 1
}
WITH row, [pair IN [[m, before], [after, m]] WHERE pair[0] IS NOT NULL AND pair[1] IS NOT NULL] AS pairs
UNWIND pairs AS pair
WITH row, pair[0] AS later, pair[1] AS earlier
MERGE (later)-[r:FOLLOWS]->(earlier)
ON CREATE SET r.gap_s = duration.inSeconds(earlier.created_at, later.created_at).seconds, r.weight = 1.0,
  r.created_at = datetime(row.at), r.source = 'write'
RETURN count(r) AS links
