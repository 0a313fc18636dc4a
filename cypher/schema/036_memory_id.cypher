// Memory id alone (statements handed ids that a namespace-filtered read found: search candidates, access counts).
CREATE INDEX memory_id_lookup IF NOT EXISTS FOR (m:Memory) ON (m.id)
