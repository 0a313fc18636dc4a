// The candidates of a search, with their similarity to the query computed in the database.
// Parameters: $ids, $embedding. Returns: memory (map, no embedding), score (cosine as (1 + cos) / 2, or null).
UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m {.*, embedding: null} AS memory,
       CASE WHEN m.embedding IS NULL THEN null ELSE vector.similarity.cosine(m.embedding, $embedding) END AS score
