// How many entities a namespace holds (graphmem.importers.runner: the entities an import of memory drafts added
// are the count after it less the count before; the write path's extractor makes them).
// Parameters: $namespace. Returns: n.
MATCH (e:Entity)
WHERE e.namespace = $namespace
RETURN count(e) AS n
