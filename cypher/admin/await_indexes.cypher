// Waits until every index is online. Parameters: $timeout_s.
CALL db.awaitIndexes($timeout_s)
