// Deletes idempotency keys past their time. Parameters: $now. Returns: expired (count).
MATCH (k:RequestKey) WHERE k.expires_at <= $now
DELETE k
RETURN count(k) AS expired
