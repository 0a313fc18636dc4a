// The memories this transaction changed (m._resign, set by the statements that change signed fields) with their
// signed fields (graphmem.security.signing.SIGNED_FIELDS), for the store to sign before it commits.
// Parameters: none. Returns: memory (map).
MATCH (m:Memory) WHERE m._resign = true
RETURN m {.id, .namespace, .kind, .content, .status, .confidence, .importance, .source, .sources, .tags,
          .created_at, .valid_from, .valid_until, .expires_at, .writer, .trust, .metadata_json, .title} AS memory
