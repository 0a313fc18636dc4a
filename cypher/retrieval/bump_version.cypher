// Bumps the version counters of namespaces, as the last statement of every write transaction that changes what
// search returns: the result caches of all API replicas see the write (retrieval/namespace_versions).
// Parameters: $keys (list of counter keys '<namespace>#<shard>', '*#<shard>' for a write to every namespace:
// retrieval/cache.bump_step; one shard per transaction, so concurrent writers of a namespace seldom share a lock).
// Returns: bumped (count).
UNWIND $keys AS key
MERGE (v:NamespaceVersion {key: key})
SET v.version = coalesce(v.version, 0) + 1
RETURN count(v) AS bumped
