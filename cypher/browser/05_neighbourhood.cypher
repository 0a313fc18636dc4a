// Title: One memory's neighbourhood
// Shows: one memory and everything one edge away. $memory is a memory's id or a word of its content (null:
// the memory with the most edges). Double-click a node in the picture to expand it further.
// Parameters: $namespace, $memory.
// Returns: p (paths: a graph).
MATCH (m:Memory {namespace: $namespace})
WHERE $memory IS NULL OR m.id = $memory OR m.content CONTAINS $memory
WITH m ORDER BY COUNT { (m)--() } DESC LIMIT 1
MATCH p = (m)--()
RETURN p
