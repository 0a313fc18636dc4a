// The full-text index's configuration, if it exists.
// Parameters: $name. Returns: name, analyzer, state.
SHOW FULLTEXT INDEXES YIELD name, options, state
WHERE name = $name
RETURN name, options.indexConfig['fulltext.analyzer'] AS analyzer, state
