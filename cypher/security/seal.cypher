// Stores the signatures of the memories security/dirty returned and clears their mark.
// Parameters: $rows ({namespace, id, signature, key}). Returns: sealed (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m.signature = row.signature, m.signature_key = row.key
REMOVE m._resign
RETURN count(m) AS sealed
