// Test only: the dedupe lock nodes of one namespace (memory/lock_hashes). Parameters: $prefix. Returns: n.
MATCH (l:DedupeLock) WHERE l.key STARTS WITH $prefix
RETURN count(l) AS n
