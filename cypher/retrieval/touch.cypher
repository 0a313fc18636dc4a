// Records that memories were returned by searches (batched, off the request path).
// Parameters: $rows ({namespace, id, n, at}). Returns: touched (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m.access_count = coalesce(m.access_count, 0) + row.n,
    m.last_accessed_at = CASE WHEN m.last_accessed_at IS NULL OR m.last_accessed_at < row.at THEN row.at
                              ELSE m.last_accessed_at END
RETURN count(m) AS touched
