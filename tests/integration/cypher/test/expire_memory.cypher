// Tests: lets a memory's time be up now (its expires_at a second ago), instead of sleeping until it is.
// Parameters: $namespace, $id. Returns: id.
MATCH (m:Memory {namespace: $namespace, id: $id})
SET m.expires_at = datetime() - duration('PT1S'), m._resign = true
RETURN m.id AS id
