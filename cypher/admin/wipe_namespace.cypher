// Deletes every node of one namespace with its edges (tests; purge of a whole agent): memories, entities, tasks,
// turns, its maintenance jobs' state (:Maintenance, graphmem/lifecycle/worker.py); and the namespace's dedupe
// lock nodes (memory/lock_hashes: keyed '<namespace>\u0000<hash prefix>', without a namespace property). Its
// NamespaceVersion node stays: a cache must never see a counter go back to a value it saw before.
// Parameters: $namespace, $lock_prefix (the namespace followed by '\u0000'). Returns: deleted (count of nodes).
MATCH (n) WHERE n.namespace = $namespace
DETACH DELETE n
WITH count(n) AS deleted
OPTIONAL MATCH (l:DedupeLock) WHERE l.key STARTS WITH $lock_prefix
WITH deleted, collect(l) AS locks
FOREACH (l IN locks | DELETE l)
RETURN deleted
