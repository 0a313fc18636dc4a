// A turn is identified by (namespace, id) (see 033).
CREATE CONSTRAINT turn_key IF NOT EXISTS FOR (t:Turn) REQUIRE (t.namespace, t.id) IS UNIQUE
