// Version counters of the search result caches (retrieval/bump_version, retrieval/namespace_versions): 16 nodes
// per namespace (key: '<namespace>#<shard>', or '*#<shard>' for writes that touch every namespace). Keyed by a
// string without a namespace property, like DedupeLock: they are no data of the namespace (counts, stats,
// wipes), so a counter never goes back to a value a cache saw before.
CREATE CONSTRAINT namespace_version IF NOT EXISTS FOR (v:NamespaceVersion) REQUIRE v.key IS UNIQUE
