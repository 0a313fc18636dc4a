// Claims an idempotency key inside the write transaction. A fresh (or expired) key is taken and
// stamped with this payload's hash and result; a live key is returned as it is for the caller to compare.
// Parameters: $id, $payload_hash, $result_json, $now, $expires_at.
// Returns: claimed (bool), payload_hash, result_json.
MERGE (k:RequestKey {id: $id})
WITH k, (k.payload_hash IS NULL OR k.expires_at <= $now) AS claimed
SET k.payload_hash = CASE WHEN claimed THEN $payload_hash ELSE k.payload_hash END,
    k.result_json = CASE WHEN claimed THEN $result_json ELSE k.result_json END,
    k.created_at = CASE WHEN claimed THEN $now ELSE k.created_at END,
    k.expires_at = CASE WHEN claimed THEN $expires_at ELSE k.expires_at END
RETURN claimed, k.payload_hash AS payload_hash, k.result_json AS result_json
