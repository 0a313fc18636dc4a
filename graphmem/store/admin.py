"""Synchronous checks used while a server starts (the store itself is async)."""

from __future__ import annotations

import neo4j

from graphmem.config import Settings
from graphmem.errors import StoreUnavailableError
from graphmem.store.cypher import CypherLoader


def auth_for(settings: Settings, *, auth: bool = True) -> tuple[str, str] | None:
    if not auth or not settings.neo4j_auth:
        return None
    return (settings.neo4j_user, settings.neo4j_password.get_secret_value())


def wait_ready(settings: Settings, *, auth: bool = True, uri: str | None = None) -> None:
    """One readiness probe: ``verify_connectivity`` then ``RETURN 1``. Raises when not ready yet."""
    cypher = CypherLoader()
    try:
        with neo4j.GraphDatabase.driver(uri or settings.neo4j_uri, auth=auth_for(settings, auth=auth),
                                        connection_timeout=3, notifications_min_severity="OFF") as driver:
            driver.verify_connectivity()
            records, _, _ = driver.execute_query(cypher("admin/ping"), database_=settings.neo4j_database)
            if records[0]["ok"] != 1:
                raise StoreUnavailableError("Neo4j answered RETURN 1 with something else")
    except neo4j.exceptions.Neo4jError as exc:
        raise StoreUnavailableError(f"Neo4j not ready: {exc}") from exc
    except neo4j.exceptions.DriverError as exc:
        raise StoreUnavailableError(f"Neo4j not reachable: {exc}") from exc
