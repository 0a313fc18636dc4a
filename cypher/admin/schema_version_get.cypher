// The recorded schema version. Parameters: none.
// Returns: version, embedding_dim, embedding_model, embedder (null when recorded before it was), similarity,
// applied_at (no row before the first migration).
MATCH (v:GraphmemSchema {id: 'graphmem'})
RETURN v.version AS version, v.embedding_dim AS embedding_dim, v.embedding_model AS embedding_model,
       v.embedder AS embedder, v.similarity AS similarity, v.applied_at AS applied_at
