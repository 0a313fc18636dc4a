// Namespace alone (listing, stats).
CREATE INDEX memory_namespace IF NOT EXISTS FOR (m:Memory) ON (m.namespace)
