"""The query is embedded while the namespace versions are read (``RetrievalService.search``): real Neo4j, the
real embedder behind a slow wrapper that records when it ran."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from graphmem.embed import Embedder
from graphmem.errors import GraphmemError
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.service import MemoryService
from graphmem.store import Store
from tests.integration.test_retrieval import ids, write

PAUSE_S = 0.3


class SlowEmbedder:
    """The real embedder, each query taking ``PAUSE_S`` longer; records when each began and ended."""

    def __init__(self, inner: Embedder, *, fail: bool = False) -> None:
        self.inner, self.fail = inner, fail
        self.model_name, self.dimension = inner.model_name, inner.dimension
        self.began: list[float] = []
        self.ended: list[float] = []
        self.lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        with self.lock:
            self.began.append(time.perf_counter())
        time.sleep(PAUSE_S)
        if self.fail:
            raise RuntimeError("the embedder broke")
        vector = self.inner.embed_query(text)
        with self.lock:
            self.ended.append(time.perf_counter())
        return vector


class VersionClock(Store):
    """The real store, recording when each version read returned."""

    returned: list[float]

    async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
        row = await super().read_row(name, **params)
        if name == "retrieval/namespace_versions":
            self.returned.append(time.perf_counter())
        return row


def _service(store: Store, embedder: SlowEmbedder, service: MemoryService) -> tuple[RetrievalService, VersionClock]:
    clock = VersionClock(store.driver, store.settings)
    clock.returned = []
    return RetrievalService(clock, embedder, service.settings), clock


async def test_the_query_is_embedded_while_the_versions_are_read(service: MemoryService, store: Store,
                                                                 namespace: str) -> None:
    (a,) = await write(service, namespace, "Hana restores old pianos.")
    slow = SlowEmbedder(service.embedder)
    retrieval, clock = _service(store, slow, service)
    opts = SearchOptions(namespaces=(namespace,), k=1)
    first = await retrieval.search("Who restores pianos?", opts)
    assert ids(first) == [a]
    assert len(slow.began) == 1
    assert len(clock.returned) == 1
    assert slow.began[0] < clock.returned[0] < slow.ended[0]  # the read returned while the embedding ran
    took_ms = (slow.ended[0] - slow.began[0]) * 1000
    assert first.timings_ms["embed"] < took_ms  # what is left of the embedding after the read and the parsing
    again = await retrieval.search("Who restores pianos?", opts)
    assert again.cached
    assert ids(again) == [a]
    assert len(slow.began) == 1  # a cache hit: the kept vector, no embedding


async def test_a_failing_embedder_fails_the_search_and_nothing_is_cached(
        service: MemoryService, store: Store, namespace: str) -> None:
    await write(service, namespace, "Hana restores old pianos.")
    broken = SlowEmbedder(service.embedder, fail=True)
    retrieval, _ = _service(store, broken, service)
    opts = SearchOptions(namespaces=(namespace,), k=1)
    with pytest.raises(RuntimeError, match="the embedder broke"):
        await retrieval.search("Who restores pianos?", opts)
    broken.fail = False
    response = await retrieval.search("Who restores pianos?", opts)
    assert not response.cached
    assert len(response.results) == 1
    assert len(broken.began) == 2


@pytest.mark.parametrize("read_s", [0.01, PAUSE_S * 2], ids=["read-fails-first", "embedding-fails-first"])
async def test_a_failed_version_read_leaves_no_embedding_behind(service: MemoryService, store: Store,
                                                                namespace: str, read_s: float,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """The version read fails while the (failing) embedding runs, or after it failed: the search raises the read's
    error, and the embedding's is neither raised nor logged as never retrieved."""

    class Unreadable(VersionClock):
        async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
            if name == "retrieval/namespace_versions":
                await asyncio.sleep(read_s)
                raise GraphmemError("versions unreadable")
            return await super().read_row(name, **params)

    slow = SlowEmbedder(service.embedder, fail=True)
    unreadable = Unreadable(store.driver, store.settings)
    unreadable.returned = []
    retrieval = RetrievalService(unreadable, slow, service.settings)
    with pytest.raises(GraphmemError, match="versions unreadable"):
        await retrieval.search("Who restores pianos?", SearchOptions(namespaces=(namespace,), k=1))
    assert len(slow.began) == 1
    await asyncio.sleep(PAUSE_S * 2)  # a cancelled embedding's thread finishes (and fails) meanwhile
    gc.collect()
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
