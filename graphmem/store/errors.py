"""Translation of neo4j driver errors into graphmem's error tree, done once, here."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import neo4j.exceptions as nx

from graphmem.errors import ConflictError, StoreError, StoreUnavailableError


def translate(exc: Exception, *, what: str) -> Exception:
    """The graphmem error for a driver error (``what`` names the operation, for the message)."""
    if isinstance(exc, nx.ServiceUnavailable | nx.SessionExpired | nx.IncompleteCommit):
        return StoreUnavailableError(f"{what}: Neo4j is unavailable ({exc.__class__.__name__}: {exc})")
    if isinstance(exc, ConnectionError | OSError | TimeoutError):
        return StoreUnavailableError(f"{what}: connection to Neo4j failed ({exc})")
    if isinstance(exc, nx.AuthError):
        return StoreUnavailableError(f"{what}: Neo4j refused the credentials")
    if isinstance(exc, nx.ConstraintError):
        return ConflictError(f"{what}: {getattr(exc, 'message', None) or exc}")
    if isinstance(exc, nx.Neo4jError):
        return StoreError(f"{what}: {exc.code}: {exc.message}")
    if isinstance(exc, nx.DriverError):
        return StoreUnavailableError(f"{what}: {exc.__class__.__name__}: {exc}")
    return exc


@asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    try:
        yield
    except (nx.Neo4jError, nx.DriverError, ConnectionError, OSError) as exc:
        raise translate(exc, what=what) from exc
