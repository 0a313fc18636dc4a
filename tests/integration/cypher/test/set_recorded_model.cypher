// Test helper: records another embedding model in the schema record (as if the model had changed).
// Parameters: $model. Returns: n.
MATCH (v:GraphmemSchema {id: 'graphmem'}) SET v.embedding_model = $model RETURN count(v) AS n
