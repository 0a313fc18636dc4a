// Native vector index on Memory.embedding.
// Parameters: $dimensions (int, from the configured embedder), $similarity ('cosine' | 'euclidean').
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: $similarity}}
