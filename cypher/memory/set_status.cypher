// Moves memories between statuses (soft delete, restore, archive).
// Parameters: $ids, $namespace, $from (list of statuses allowed before), $to, $at.
// Returns: id (of each memory changed).
MATCH (m:Memory) WHERE m.id IN $ids AND m.namespace = $namespace AND m.status IN $from
SET m.status = $to, m.updated_at = $at, m._resign = true
RETURN m.id AS id
