"""The real Neo4j for integration tests: started once per run, or taken from GRAPHMEM_NEO4J_URI."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.service import MemoryService
from graphmem.store import Store, migrate
from graphmem.store.admin import wait_ready
from graphmem.store.cypher import register_folder

pytestmark = pytest.mark.integration
register_folder("test", Path(__file__).parent / "cypher" / "test")  # the statements only these tests run


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/integration" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.integration)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings that point at a running, migrated Neo4j."""
    if os.environ.get("GRAPHMEM_NEO4J_URI"):
        yield Settings()
        return
    home = tmp_path_factory.mktemp("neo4j-home")
    settings = Settings(
        neo4j_home=home, neo4j_bolt_port=free_port(), neo4j_http_port=free_port(),
        neo4j_password=SecretStr(secrets.token_urlsafe(16)), neo4j_heap="768m", neo4j_pagecache="256m",
    )
    settings = settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{settings.neo4j_bolt_port}"})
    server = LocalNeo4j(settings)
    server.fetch()
    # SIGTERM (a CI timeout, `kill`) would end pytest without teardown and leave this JVM running: turn it into
    # the KeyboardInterrupt pytest tears down after.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    server.start(ready=lambda: wait_ready(settings))
    try:
        yield settings
    finally:
        server.stop()
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
async def migrated(neo4j_settings: Settings) -> Settings:
    async with Store.connect(neo4j_settings) as store:
        await migrate(store, embedding_dim=embedding_dimension(neo4j_settings))
    return neo4j_settings


@pytest.fixture
async def store(migrated: Settings) -> AsyncIterator[Store]:
    async with Store.connect(migrated) as s:
        yield s


@pytest.fixture
async def namespace(store: Store) -> AsyncIterator[str]:
    """A namespace of this test alone, wiped afterwards: tests never see each other's data."""
    ns = f"t-{uuid.uuid4().hex[:12]}"
    yield ns
    await store.wipe_namespace(ns)


@pytest.fixture(scope="session")
def neo4j_cache_dir(neo4j_settings: Settings) -> Path:
    return neo4j_settings.cache_dir


@pytest.fixture(scope="session")
def embedder(neo4j_settings: Settings) -> Embedder:
    """The real default embedder (packaged MiniLM), loaded once per run."""
    return make_embedder(neo4j_settings)


@pytest.fixture
def service(store: Store, embedder: Embedder, migrated: Settings) -> MemoryService:
    return MemoryService(store, embedder, migrated)


NO_CONSTRUCTION = {"graph_follows": False, "graph_entities": False, "graph_similar_k": 0}
"""Settings that turn the write path's graph construction off, for tests of a walk over edges they draw by hand."""


@pytest.fixture
def bare_service(store: Store, embedder: Embedder, migrated: Settings) -> MemoryService:
    """A service whose writes build no graph (no FOLLOWS, entities from content or SIMILAR_TO)."""
    return MemoryService(store, embedder, migrated.model_copy(update=NO_CONSTRUCTION))


ROOT = Path(__file__).resolve().parents[2]


def _llm_answers(url: str, *, patience_s: float = 600) -> bool:
    """True when the server answers /models. A llama.cpp server that is busy with another client's completion
    (a minute or more on 2 cores) answers only after it: wait for it while the port accepts connections."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            return httpx.get(f"{url}/models", timeout=30).status_code == 200
        except httpx.ConnectError:
            return False
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                return False


@pytest.fixture(scope="session")
def llm_base_url() -> Iterator[str]:
    """The real local LLM (scripts/llm-server.sh): GRAPHMEM_LLM_BASE_URL, or the script's default port. When
    nothing answers there, the session starts it (and stops it after); it is never skipped."""
    port = os.environ.get("GRAPHMEM_LLM_PORT", "8088")
    url = os.environ.get("GRAPHMEM_LLM_BASE_URL") or f"http://127.0.0.1:{port}/v1"
    if _llm_answers(url):
        yield url
        return
    script = ROOT / "scripts" / "llm-server.sh"
    started = subprocess.run([str(script), "start"], capture_output=True, text=True, check=False)
    if started.returncode != 0 or not _llm_answers(url):
        pytest.fail(f"no LLM answers at {url}, and `scripts/llm-server.sh start` failed (run "
                    f"`scripts/llm-server.sh setup` once):\n{started.stdout[-2000:]}{started.stderr[-2000:]}")
    try:
        yield url
    finally:
        subprocess.run([str(script), "stop"], capture_output=True, check=False)


@pytest.fixture
def llm_settings(migrated: Settings, llm_base_url: str) -> Settings:
    return migrated.model_copy(update={"llm_base_url": llm_base_url})
