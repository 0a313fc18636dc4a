// Bumps the version counters of namespaces, as the last statement of every write transaction that changes what
// search returns: the result caches of all API replicas see the write (retrieval/namespace_versions).
// Parameters: $keys (list: namespaces, or ['*'] for a write to every namespace). Returns: bumped (count).
UNWIND $keys AS key
MERGE (v:NamespaceVersion {key: key})
SET v.version = coalesce(v.version, 0) + 1
RETURN count(v) AS bumped
