// Takes the write locks of the lock nodes of the content hashes a write may create (MERGEd, then SET: a writer
// of the same hash waits until this transaction commits), at the start of the write transaction; the writer
// then re-reads the exact duplicates (memory/by_hash) under the locks. $keys are sorted by the caller, so two
// writers lock in the same order (no deadlock between them).
// Parameters: $keys (sorted, from write_tx.lock_key), $at. Returns: locked (count).
UNWIND $keys AS key
MERGE (l:DedupeLock {key: key})
SET l.locked_at = $at
RETURN count(l) AS locked
