// The version counters of namespaces (retrieval/bump_version): read before every search, a cached result is
// served only while they are unchanged. Parameters: $keys (list of namespaces and '*').
// Returns ONE row: versions (list of [key, version] of the keys that have a counter; the others are at 0).
MATCH (v:NamespaceVersion) WHERE v.key IN $keys
RETURN collect([v.key, v.version]) AS versions
