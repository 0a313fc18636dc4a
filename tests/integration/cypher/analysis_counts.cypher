// Test only: what an analysis export of a namespace should hold, counted straight from the database: memories of
// the given statuses, entities, tasks, turns, and edges by type between the nodes an export keeps.
// Parameters: $namespace, $statuses. Returns: memories, entities, tasks, turns, edges (map type -> count).
CALL () {
  MATCH (m:Memory {namespace: $namespace}) WHERE m.status IN $statuses RETURN count(m) AS memories
}
CALL () { MATCH (e:Entity {namespace: $namespace}) RETURN count(e) AS entities }
CALL () { MATCH (t:Task {namespace: $namespace}) RETURN count(t) AS tasks }
CALL () { MATCH (t:Turn {namespace: $namespace}) RETURN count(t) AS turns }
CALL () {
  MATCH (a {namespace: $namespace})-[r]->(b {namespace: $namespace})
  WHERE (a:Memory OR a:Task) AND (NOT a:Memory OR a.status IN $statuses) AND (NOT b:Memory OR b.status IN $statuses)
    AND (b:Memory OR b:Entity OR b:Task OR b:Turn)
  WITH type(r) AS type, count(r) AS n
  RETURN collect([type, n]) AS pairs
}
RETURN memories, entities, tasks, turns, pairs
