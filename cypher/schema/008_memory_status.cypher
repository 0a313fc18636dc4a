// Status alone (sweeps).
CREATE INDEX memory_status IF NOT EXISTS FOR (m:Memory) ON (m.status)
