// Makes the (:Maintenance) node of each (namespace, job) the worker runs, once: a new one is due at once. A node
// holds the job's schedule (next_due, last_run_at), its lease (claimed_by, lease_until) and its record (runs,
// failures, last_error, last_counts_json). MERGE on (namespace, job) takes the maintenance_key constraint's lock:
// of two workers making one node, one creates it. It has a namespace property: wiping a namespace removes it.
// Parameters: $rows ({namespace, job}, sorted), $now. Returns: created (count of new nodes).
UNWIND $rows AS row
MERGE (j:Maintenance {namespace: row.namespace, job: row.job})
ON CREATE SET j.next_due = $now, j.runs = 0, j.failures = 0, j.created_at = $now, j._new = true
WITH j, coalesce(j._new, false) AS created
REMOVE j._new
RETURN count(CASE WHEN created THEN 1 END) AS created
