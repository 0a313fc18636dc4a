// Active memories with the given content hashes in a namespace.
// Parameters: $hashes, $namespace. Returns: id, content_hash, kind.
MATCH (m:Memory) WHERE m.content_hash IN $hashes AND m.namespace = $namespace AND m.status = 'active'
RETURN m.id AS id, m.content_hash AS content_hash, m.kind AS kind,
       m {.id, .namespace, .kind, .content, .status, .confidence, .importance, .source, .sources, .tags, .created_at, .valid_from, .valid_until, .expires_at, .writer, .trust, .metadata_json, .title, .signature, .signature_key} AS signed
