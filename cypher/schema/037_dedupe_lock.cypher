// Lock nodes of the write path (memory/lock_hashes): one per (namespace, content hash bucket), so concurrent
// writes of the same content take turns. Keyed by a string that holds the namespace, without a namespace
// property: they are no data of the namespace (counts, stats), and there are at most 4096 per namespace.
CREATE CONSTRAINT dedupe_lock IF NOT EXISTS FOR (l:DedupeLock) REQUIRE l.key IS UNIQUE
