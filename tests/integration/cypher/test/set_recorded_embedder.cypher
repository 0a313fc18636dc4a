// Test helper: records another embedder in the schema record (as if the store had been written by it).
// Parameters: $embedder. Returns: n.
MATCH (v:GraphmemSchema {id: 'graphmem'}) SET v.embedder = $embedder RETURN count(v) AS n
