// One entity per (namespace, name).
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.namespace, e.name) IS UNIQUE
