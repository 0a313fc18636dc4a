"""The one exception tree of graphmem.

Errors from lower libraries (neo4j, openai, subprocess) are translated into these at the boundary, once.

    GraphmemError
    ├── ConfigError                  settings missing or inconsistent
    ├── ValidationError              bad input; nothing was written (``item`` names the bad batch item)
    ├── NotFoundError                an id that does not exist (in the caller's namespace)
    ├── ConflictError                idempotency key reused with another payload, duplicate ids
    ├── UnauthenticatedError         no bearer token, a malformed one, or one that matches no entry
    ├── ForbiddenError               the caller may not read/write that namespace (never says if it exists)
    ├── RateLimitedError             too many requests for this caller (``retry_after`` seconds to wait)
    ├── OverloadedError              the server is at capacity (requests in flight, Neo4j's connection pool)
    ├── StoreError                   the database said no
    │   ├── StoreUnavailableError    Neo4j unreachable, connection dropped, server stopped
    │   │   └── CircuitOpenError     refused at once: Neo4j is known to be down (``retry_after``)
    │   └── SchemaMismatchError      the database schema does not fit the configuration
    ├── EmbeddingError               the embedding model or server failed, or answered nonsense
    ├── LLMError                     the LLM could not give a usable answer
    │   ├── LLMUnavailableError      unreachable, timed out, 429/5xx after retries
    │   └── LLMOutputError           the answer is not the JSON asked for (after the repair retry)
    └── LocalNeo4jError              the local server manager failed
        ├── JavaNotFoundError        no java, or a version below 17
        ├── MavenNotFoundError       no mvn on PATH
        ├── PortInUseError           a configured port is taken
        ├── ServerStartError         the JVM died at start (carries the log tail)
        └── ServerTimeoutError       the server did not become ready in time
"""

from __future__ import annotations

import math


def ceil_seconds(seconds: float, places: int) -> float:
    """A wait in seconds rounded up to ``places`` decimals and at least one unit of the last: a client told to wait
    0.001 s reads 0.01 s at two places, never 0.00 s (which it would take as "now")."""
    unit = 10.0**places
    return max(1, math.ceil(round(seconds * unit, 6))) / unit


class GraphmemError(Exception):
    """Base class of every error graphmem raises on purpose."""

    code: str = "INTERNAL"


class ConfigError(GraphmemError):
    code = "INVALID_CONFIG"


class ValidationError(GraphmemError):
    code = "INVALID_INPUT"

    def __init__(self, message: str, *, item: int | None = None, field: str | None = None) -> None:
        prefix = f"item {item}: " if item is not None else ""
        super().__init__(prefix + message)
        self.item = item
        self.field = field


class NotFoundError(GraphmemError):
    code = "NOT_FOUND"


class ConflictError(GraphmemError):
    code = "CONFLICT"


class UnauthenticatedError(GraphmemError):
    code = "UNAUTHENTICATED"


class ForbiddenError(GraphmemError):
    code = "FORBIDDEN"


class RateLimitedError(GraphmemError):
    code = "RATE_LIMITED"

    def __init__(self, retry_after: float, message: str = "rate limit exceeded") -> None:
        super().__init__(f"{message}; retry after {ceil_seconds(retry_after, 2):.2f}s")
        self.retry_after = retry_after


class OverloadedError(GraphmemError):
    """Refused at once, nothing done: too much work in flight. Not UNAVAILABLE: the database may be fine."""

    code = "OVERLOADED"

    def __init__(self, message: str = "the server is at capacity", *, retry_after: float = 1.0) -> None:
        super().__init__(f"{message}; retry after {ceil_seconds(retry_after, 2):.2f}s")
        self.retry_after = retry_after


class StoreError(GraphmemError):
    code = "STORE_ERROR"


class StoreUnavailableError(StoreError):
    code = "UNAVAILABLE"


class CircuitOpenError(StoreUnavailableError):
    """Neo4j is known to be down (the circuit breaker is open): the call was not tried."""

    def __init__(self, message: str, *, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class SchemaMismatchError(StoreError):
    code = "SCHEMA_MISMATCH"


class EmbeddingError(GraphmemError):
    code = "EMBEDDING_ERROR"


class LLMError(GraphmemError):
    code = "LLM_ERROR"


class LLMUnavailableError(LLMError):
    code = "UNAVAILABLE"


class LLMOutputError(LLMError):
    code = "LLM_BAD_OUTPUT"


class LocalNeo4jError(GraphmemError):
    code = "LOCAL_NEO4J"


class JavaNotFoundError(LocalNeo4jError):
    pass


class MavenNotFoundError(LocalNeo4jError):
    pass


class PortInUseError(LocalNeo4jError):
    pass


class ServerStartError(LocalNeo4jError):
    def __init__(self, message: str, *, log_tail: str = "") -> None:
        super().__init__(message + (f"\n--- last lines of the Neo4j log ---\n{log_tail}" if log_tail else ""))
        self.log_tail = log_tail


class ServerTimeoutError(LocalNeo4jError):
    pass
