// The candidates of a search, with their similarity to the query computed in the database.
// Parameters: $ids, $embedding.
// Returns ONE row: candidates, a list of maps {memory (the fields the ranking reads: id, created_at as an
// ISO-8601 string, access_count, confidence), score (cosine as (1 + cos) / 2, or null)}.
// Why so: one row, as the driver's cost per record dominated; only what the ranking needs, as a search returns
// a few of its ~170 candidates (retrieval/memories reads those in full: projecting and decoding every field of
// every candidate was a tenth of a 100k search).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN collect({
  memory: {id: m.id, created_at: toString(m.created_at), access_count: m.access_count, confidence: m.confidence},
  score: CASE WHEN m.embedding IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $embedding) END
}) AS candidates
