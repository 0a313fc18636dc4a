// Idempotency keys of writes (request ids).
CREATE CONSTRAINT request_key IF NOT EXISTS FOR (r:RequestKey) REQUIRE r.id IS UNIQUE
