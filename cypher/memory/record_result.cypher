// Stores the result of a write on its idempotency key (claimed by request/claim earlier in the same transaction),
// once the transaction has decided it. Parameters: $id, $result_json. Returns: id.
MATCH (k:RequestKey {id: $id})
SET k.result_json = $result_json
RETURN k.id AS id
