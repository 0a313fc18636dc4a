// The maintenance jobs of some namespaces: schedule, lease and record, for status output and tests.
// Parameters: $namespaces (list). Returns: job (map of the node's properties).
MATCH (j:Maintenance)
WHERE j.namespace IN $namespaces
RETURN j {.*} AS job
ORDER BY j.namespace, j.job
