// One memory whose content holds a CJK character, if any (the embedders differ on such text only).
// Parameters: $pattern (a Java regular expression matching the whole content). Returns: id, namespace.
MATCH (m:Memory)
WHERE m.content =~ $pattern
RETURN m.id AS id, m.namespace AS namespace
LIMIT 1
