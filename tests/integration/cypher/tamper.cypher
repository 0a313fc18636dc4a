// Test only: what someone with database access does, bypassing graphmem: changes a memory's properties.
// Parameters: $rows ({namespace, id, props (map)}). Returns: changed (count).
UNWIND $rows AS row
MATCH (m:Memory {namespace: row.namespace, id: row.id})
SET m += row.props
RETURN count(m) AS changed
