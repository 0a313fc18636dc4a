// Recency channel and time filters.
CREATE INDEX memory_created_at IF NOT EXISTS FOR (m:Memory) ON (m.created_at)
