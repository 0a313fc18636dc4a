// Title: FOLLOWS and SIMILAR_TO in numbers
// Shows: how many of each edge $namespace has and their weights (SIMILAR_TO: the cosine, at least
// GRAPHMEM_GRAPH_SIMILAR_MIN).
// Parameters: $namespace.
// Returns: edge, edges, min_weight, avg_weight, max_weight (rows).
MATCH (:Memory {namespace: $namespace})-[r:FOLLOWS|SIMILAR_TO]->(:Memory)
RETURN type(r) AS edge, count(*) AS edges, round(min(r.weight), 3) AS min_weight,
  round(avg(r.weight), 3) AS avg_weight, round(max(r.weight), 3) AS max_weight
ORDER BY edge
