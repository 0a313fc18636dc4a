// Graphiti source (read only): the group ids of a Graphiti graph with how many episodes, entities and facts each
// holds. Graphiti's default group id is '' on Neo4j; a node without one reads as ''.
// Parameters: $group_ids (list of strings, or null: every group). Returns: group_id, episodes, entities, facts.
CALL () {
  MATCH (n:Episodic) RETURN coalesce(n.group_id, '') AS g, 1 AS episodes, 0 AS entities, 0 AS facts
  UNION ALL
  MATCH (n:Entity) WHERE n.group_id IS NOT NULL RETURN n.group_id AS g, 0 AS episodes, 1 AS entities, 0 AS facts
  UNION ALL
  MATCH (:Entity)-[e:RELATES_TO]->(:Entity) RETURN coalesce(e.group_id, '') AS g, 0 AS episodes, 0 AS entities,
    1 AS facts
}
WITH g, episodes, entities, facts WHERE $group_ids IS NULL OR g IN $group_ids
RETURN g AS group_id, sum(episodes) AS episodes, sum(entities) AS entities, sum(facts) AS facts
ORDER BY group_id
