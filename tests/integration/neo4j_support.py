"""A Neo4j of a test's own, for tests that cannot share the session's (another embedding model, a killed server).

Not a test module."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.store.admin import wait_ready


@contextmanager
def own_neo4j(home: Path, **settings: Any) -> Iterator[Settings]:
    """A fresh Neo4j (new home, free ports), stopped afterwards; ``settings`` go into its Settings."""
    config = Settings(neo4j_home=home, neo4j_bolt_port=free_port(), neo4j_http_port=free_port(),
                      neo4j_password=SecretStr(secrets.token_urlsafe(16)), neo4j_heap="512m", neo4j_pagecache="128m",
                      **settings)
    config = config.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{config.neo4j_bolt_port}"})
    server = LocalNeo4j(config)
    server.fetch()
    server.start(ready=lambda: wait_ready(config))
    try:
        yield config
    finally:
        server.stop()
