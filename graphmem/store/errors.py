"""Translation of neo4j driver errors into graphmem's error tree, done once, here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import neo4j.exceptions as nx

from graphmem.errors import ConfigError, ConflictError, OverloadedError, StoreError, StoreUnavailableError

DATABASE_UNAVAILABLE = "Neo.TransientError.General.DatabaseUnavailable"
"""What a server that is starting (or stopping) answers: reachable, but it cannot run anything yet."""


def translate(exc: Exception, *, what: str) -> Exception:
    """The graphmem error for a driver error (``what`` names the operation, for the message)."""
    if isinstance(exc, nx.ServiceUnavailable | nx.SessionExpired | nx.IncompleteCommit):
        return StoreUnavailableError(f"{what}: Neo4j is unavailable ({exc.__class__.__name__}: {exc})")
    if isinstance(exc, ConnectionError | OSError | TimeoutError):
        return StoreUnavailableError(f"{what}: connection to Neo4j failed ({exc})")
    if isinstance(exc, nx.AuthError):  # no retry mends it: the settings must change
        return ConfigError(f"{what}: Neo4j refused the credentials (GRAPHMEM_NEO4J_USER, GRAPHMEM_NEO4J_PASSWORD)")
    if isinstance(exc, nx.ConnectionPoolError):  # every pooled connection busy: overload, not an outage
        return OverloadedError(f"{what}: no free Neo4j connection in the pool")
    if isinstance(exc, nx.ConstraintError):
        return ConflictError(f"{what}: {getattr(exc, 'message', None) or exc}")
    if isinstance(exc, nx.Neo4jError) and exc.code == DATABASE_UNAVAILABLE:
        return StoreUnavailableError(f"{what}: the Neo4j database is not available ({exc.message})")
    if isinstance(exc, nx.TransientError):  # a deadlock or lock timeout still there after the whole retry window
        return OverloadedError(f"{what}: Neo4j kept answering {exc.code} (contention) past the retry window; "
                               "nothing was written")
    if isinstance(exc, nx.Neo4jError):
        return StoreError(f"{what}: {exc.code}: {exc.message}")
    if isinstance(exc, nx.DriverError):
        return StoreUnavailableError(f"{what}: {exc.__class__.__name__}: {exc}")
    return exc


def is_connection_failure(exc: BaseException) -> bool:
    """True when ``exc`` says Neo4j could not be reached (what feeds the circuit breaker): the server is gone, a
    connection dropped or timed out, or the database is not available. An exhausted pool is not one."""
    if isinstance(exc, nx.ServiceUnavailable | nx.SessionExpired):  # IncompleteCommit included
        return True
    if isinstance(exc, nx.Neo4jError):
        return exc.code == DATABASE_UNAVAILABLE
    return isinstance(exc, OSError) and not isinstance(exc, nx.DriverError)


@asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    try:
        yield
    except (nx.Neo4jError, nx.DriverError, ConnectionError, OSError) as exc:
        raise translate(exc, what=what) from exc
