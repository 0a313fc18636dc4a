// The version counters of namespaces (retrieval/bump_version): read before every search, a cached result is
// served only while they are unchanged. Parameters: $keys (every counter key of the namespaces and '*':
// retrieval/cache.shard_keys; a namespace's version is the sum of its counters).
// Returns ONE row: versions (list of [key, version] of the keys that have a counter; the others are at 0).
MATCH (v:NamespaceVersion) WHERE v.key IN $keys
RETURN collect([v.key, v.version]) AS versions
