// Popularity channel: the most accessed memories of a namespace, read in index order (no sort of the namespace).
CREATE INDEX memory_namespace_access_count IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.access_count)
