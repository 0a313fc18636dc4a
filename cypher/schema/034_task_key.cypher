// A task is identified by (namespace, id) (see 033).
CREATE CONSTRAINT task_key IF NOT EXISTS FOR (t:Task) REQUIRE (t.namespace, t.id) IS UNIQUE
