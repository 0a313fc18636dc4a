// Recency channel: the newest memories of a namespace, read in index order (no sort of the namespace).
CREATE INDEX memory_namespace_created_at IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.created_at)
