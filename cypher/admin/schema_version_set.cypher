// Records the applied schema version.
// Parameters: $version, $embedding_dim, $embedding_model, $embedder, $similarity. Returns: version.
MERGE (v:GraphmemSchema {id: 'graphmem'})
SET v.version = $version, v.embedding_dim = $embedding_dim, v.embedding_model = $embedding_model,
    v.embedder = $embedder, v.similarity = $similarity, v.applied_at = datetime()
RETURN v.version AS version
