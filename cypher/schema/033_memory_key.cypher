// A memory is identified by (namespace, id): one tenant can neither see nor block another's ids. MERGE on both
// properties takes this constraint's lock, so two writers of one id cannot both create it.
CREATE CONSTRAINT memory_key IF NOT EXISTS FOR (m:Memory) REQUIRE (m.namespace, m.id) IS UNIQUE
