// Drops the vector index (before a re-embed with another dimension). Parameters: none.
DROP INDEX memory_embedding IF EXISTS
