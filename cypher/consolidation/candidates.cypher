// Consolidation: a page of the namespace's active memories of the given kinds, with their embeddings and how many
// DERIVED_FROM edges each has (its provenance, part of its support), in id order after a cursor. Expired working
// memory and memories without an embedding are left out.
// Parameters: $namespace, $kinds (list), $after (id, '' to start), $limit, $now.
// Returns: memory (map, no embedding), embedding (list of floats), provenance (int).
MATCH (m:Memory)
WHERE m.namespace = $namespace AND m.status = 'active' AND m.kind IN $kinds AND m.id > $after
  AND m.embedding IS NOT NULL AND (m.expires_at IS NULL OR m.expires_at > $now)
WITH m ORDER BY m.id LIMIT $limit
RETURN m {.*, embedding: null} AS memory, m.embedding AS embedding, COUNT { (m)-[:DERIVED_FROM]->() } AS provenance
