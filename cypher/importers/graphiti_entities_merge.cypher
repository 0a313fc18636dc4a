// Target: every entity of an imported Graphiti group, by its normalised name: MERGEd (so an entity that no
// imported memory is about still arrives), with graphiti's type label as its kind. The label wins over the kind the
// write path's extractor guessed when it met the name first (the group's memories are written before this runs);
// an entity graphiti gave no type keeps the kind it has ('unknown' when it has none).
// Entities are not signed. Parameters: $namespace, $rows ({name, kind (or null), at}). Returns: name, created.
UNWIND $rows AS row
MERGE (e:Entity {namespace: $namespace, name: row.name})
ON CREATE SET e.kind = coalesce(row.kind, 'unknown'), e.created_at = row.at, e._new = true
WITH e, row, coalesce(e._new, false) AS created
SET e.kind = coalesce(row.kind, e.kind)
REMOVE e._new
RETURN e.name AS name, created
