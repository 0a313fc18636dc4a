// Stores the answer kinds (graphmem.graph.answer_kinds) of memories written before the write path computed them,
// or whose stored kinds differ from what the content gives now (graphmem db rebuild-graph).
// Parameters: $rows (maps {id, namespace, answer_kinds}). Returns: links (memories set, as the other rebuild steps
// count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m.answer_kinds = row.answer_kinds
RETURN count(m) AS links
