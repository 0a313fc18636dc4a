// The maintenance worker's job state (graphmem/lifecycle/worker.py): one (:Maintenance) node per (namespace, job),
// made with MERGE by any replica's worker: the constraint lets exactly one of two create it, and is its lookup.
CREATE CONSTRAINT maintenance_key IF NOT EXISTS FOR (j:Maintenance) REQUIRE (j.namespace, j.job) IS UNIQUE
