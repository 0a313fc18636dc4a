"""The result cache across replicas (retrieval/cache): an entry is stamped with the shared versions read before
the search, and every write transaction of the services ends with the statement that bumps them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

import pytest

from graphmem.config import Settings
from graphmem.retrieval.cache import (
    ALL_NAMESPACES,
    BUMP,
    VERSION_SHARDS,
    NamespaceVersions,
    ResultCache,
    bump_step,
    shard_keys,
    shared_versions,
    version_keys,
    versions_from,
)
from graphmem.service.idempotency import IdempotentWriter
from graphmem.store import Step, Store


def test_a_changed_shared_version_is_a_miss() -> None:
    cache: ResultCache[str] = ResultCache(NamespaceVersions(), ttl_s=60)
    cache.put(("q",), ["a", "b"], "result", (4, 1, 7))
    assert cache.get(("q",), ["a", "b"], (4, 1, 7)) == "result"
    assert cache.get(("q",), ["a", "b"], (4, 1, 8)) is None, "a write through another replica was not seen"
    cache.put(("q",), ["a", "b"], "fresh", (4, 1, 8))
    assert cache.get(("q",), ["a", "b"], (5, 1, 8)) is None, "a write to every namespace was not seen"


def test_a_local_write_is_a_miss_whatever_the_shared_versions() -> None:
    versions = NamespaceVersions()
    cache: ResultCache[str] = ResultCache(versions, ttl_s=60)
    cache.put(("q",), ["a"], "result", (0, 3))
    versions.bump("a")
    assert cache.get(("q",), ["a"], (0, 3)) is None


def test_bump_step_names_a_shard_of_the_namespace_or_of_all() -> None:
    (key,) = bump_step("ns").params["keys"]
    assert bump_step("ns").name == BUMP
    assert key in shard_keys("ns")[1:]
    (every,) = bump_step(None).params["keys"]
    assert every in shard_keys(ALL_NAMESPACES)[1:]


def test_bumps_in_flight_together_lock_different_shards() -> None:
    """Writes to one namespace must not queue behind one counter's lock: this process's next VERSION_SHARDS
    bumps of a namespace each take another counter."""
    keys = [bump_step("ns").params["keys"][0] for _ in range(VERSION_SHARDS)]
    assert sorted(keys) == sorted(shard_keys("ns")[1:])


class VersionRows:
    """``retrieval/namespace_versions`` over a dict of counters."""

    def __init__(self, counters: dict[str, int]) -> None:
        self.counters = counters

    async def read_row(self, name: str, **params: Any) -> dict[str, Any]:
        assert name == "retrieval/namespace_versions"
        return {"versions": [[k, v] for k, v in self.counters.items() if k in params["keys"]]}


async def test_a_namespace_version_is_the_sum_of_its_counters_and_only_grows() -> None:
    counters = {"ns": 5, "ns#0": 2, "ns#15": 1, "other#3": 9, "*#1": 4}
    store = cast(Store, VersionRows(counters))
    assert await shared_versions(store, ["ns", "new"]) == (4, 8, 0), "the unsharded counter of older stores counts"
    counters["ns#7"] = 1
    assert await shared_versions(store, ["ns"]) == (4, 9)


def test_the_statement_reads_the_same_counters_as_the_version_read() -> None:
    keys = version_keys(["ns"])
    assert keys == [*shard_keys(ALL_NAMESPACES), *shard_keys("ns")]
    assert versions_from([["ns#3", 2], ["*", 1], ["ns", 4], ["*#9", 5]], ["ns", "new"]) == (6, 6, 0)
    assert versions_from([], ["ns"]) == (0, 0)


def test_only_a_fresh_entry_asks_for_the_version_read(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr("graphmem.retrieval.cache.time.monotonic", lambda: now[0])  # the time module cache reads
    cache: ResultCache[str] = ResultCache(NamespaceVersions(), ttl_s=60)
    assert not cache.may_hold(("q",))
    assert (cache.hits, cache.misses) == (0, 1)
    cache.put(("q",), ["a"], "result", (0, 1))
    assert cache.may_hold(("q",))
    assert cache.get(("q",), ["a"], (0, 1)) == "result"
    now[0] += 61
    assert not cache.may_hold(("q",)), "an expired entry needs no check: the search runs"
    assert cache.get(("q",), ["a"], (0, 1)) is None, "the expired entry is gone"
    assert (cache.hits, cache.misses) == (1, 3)


class RecordingStore:
    """Records the steps of each write transaction; each statement returns one row naming it."""

    def __init__(self) -> None:
        self.transactions: list[list[str]] = []

    async def write(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        self.transactions.append([s.name for s in steps])
        return [[{"name": s.name}] for s in steps]

    async def write_once(self, claim: Step, steps: Sequence[Step]) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
        self.transactions.append([claim.name, *(s.name for s in steps)])
        return [[{"name": s.name}] for s in steps], {"claimed": True}

    async def transact(self, label: str, work: Callable[[Any], Awaitable[Any]]) -> Any:
        names: list[str] = []

        class Tx:
            async def run(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
                names.append(name)
                return [{"name": name}]

        result = await work(Tx())
        self.transactions.append(names)
        return result


async def test_every_write_transaction_ends_with_the_bump() -> None:
    store = RecordingStore()
    writer = IdempotentWriter(cast(Store, store), Settings())
    results = await writer._write("ns", [Step("memory/update", {})])
    assert results == [[{"name": "memory/update"}]], "the bump's result leaked into the write's results"
    await writer._apply("ns", "req-1", "relate", {}, [Step("relation/relate", {})], "1")

    async def work(tx: Any) -> str:
        await tx.run("memory/create")
        return "done"

    assert await writer._transact("ns", "write", work) == "done"
    assert store.transactions == [["memory/update", BUMP], ["request/claim", "relation/relate", BUMP],
                                  ["memory/create", BUMP]]
