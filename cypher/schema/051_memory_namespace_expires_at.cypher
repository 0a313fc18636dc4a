// Life cycle sweep (cypher/lifecycle/expire.cypher): the expired memories of a namespace, by a range seek.
CREATE INDEX memory_namespace_expires_at IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.expires_at)
