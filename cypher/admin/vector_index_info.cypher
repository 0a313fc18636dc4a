// The vector index's configuration, if it exists.
// Parameters: $name. Returns: name, dimensions, similarity, state.
SHOW VECTOR INDEXES YIELD name, options, state
WHERE name = $name
RETURN name, options.indexConfig['vector.dimensions'] AS dimensions,
       options.indexConfig['vector.similarity_function'] AS similarity, state
