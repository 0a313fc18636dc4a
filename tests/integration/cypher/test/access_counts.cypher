// Tests: the access counts of a namespace. Parameters: $namespace. Returns ONE row: total, kinds (of its memories).
MATCH (m:Memory) WHERE m.namespace = $namespace
RETURN sum(coalesce(m.access_count, 0)) AS total, collect(DISTINCT m.kind) AS kinds
