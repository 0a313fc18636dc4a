// Marks memories for re-signing in this transaction (`graphmem integrity resign`); the store seals them before it
// commits. Parameters: $rows ({namespace, id}). Returns: marked (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m._resign = true
RETURN count(m) AS marked
