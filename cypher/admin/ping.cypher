// Readiness probe. Parameters: none. Returns: ok = 1.
RETURN 1 AS ok
