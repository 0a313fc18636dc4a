// Title: The edges search walks: FOLLOWS and SIMILAR_TO
// Shows: one memory ($memory, or the one with the most of these edges) with the turns before and after it
// (FOLLOWS) and the memories like it (SIMILAR_TO, weight = cosine): what search's expansion reaches in a hop.
// Parameters: $namespace, $memory.
// Returns: p (paths: a graph).
MATCH (m:Memory {namespace: $namespace})
WHERE $memory IS NULL OR m.id = $memory OR m.content CONTAINS $memory
WITH m ORDER BY COUNT { (m)-[:FOLLOWS|SIMILAR_TO]-() } DESC LIMIT 1
MATCH p = (m)-[:FOLLOWS|SIMILAR_TO]-(:Memory)
RETURN p
