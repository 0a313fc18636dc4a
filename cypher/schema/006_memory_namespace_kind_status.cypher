// Filters used by every read: namespace, kind, status.
CREATE INDEX memory_ns_kind_status IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.kind, m.status)
