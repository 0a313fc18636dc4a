// Drops the full-text index (before it is rebuilt with another analyzer). Parameters: none.
DROP INDEX memory_fulltext IF EXISTS
