// A live idempotency key. Parameters: $id, $now. Returns: payload_hash, result_json.
MATCH (k:RequestKey {id: $id}) WHERE k.expires_at > $now
RETURN k.payload_hash AS payload_hash, k.result_json AS result_json
