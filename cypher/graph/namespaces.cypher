// The namespaces that hold memories (for rebuilding every namespace's graph). Parameters: none. Returns: namespace.
MATCH (m:Memory)
RETURN DISTINCT m.namespace AS namespace
ORDER BY namespace
