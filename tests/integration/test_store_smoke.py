"""The store end to end on the real Neo4j: create, get, list, vector and full-text queries."""

from __future__ import annotations

import math
import random
import time
from datetime import UTC, datetime, timedelta

import pytest

from graphmem.errors import ConflictError
from graphmem.models import Memory, MemoryKind, MemoryStatus, ScoredMemory
from graphmem.store import Step, Store


def unit(*xs: float, dim: int = 384) -> list[float]:
    """A unit vector with the given leading components (the rest zero)."""
    v = [*xs, *([0.0] * (dim - len(xs)))]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def mem(ns: str, content: str, **kw: object) -> Memory:
    return Memory(namespace=ns, kind=kw.pop("kind", MemoryKind.SEMANTIC), content=content, **kw)  # type: ignore[arg-type]


async def test_create_get_list(store: Store, namespace: str) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    a = mem(namespace, "Alice likes green tea", created_at=t0, tags=("Drinks", "alice"))
    b = mem(namespace, "Bob moved to Berlin", created_at=t0 + timedelta(days=1), kind=MemoryKind.EPISODIC)
    created = await store.create_memories([a, b], [unit(1, 0), unit(0, 1)])
    assert sorted(created) == sorted([a.id, b.id])

    got = await store.get_memory(a.id, [namespace])
    assert got is not None
    assert got.content == a.content
    assert got.created_at == t0
    assert got.tags == ("drinks", "alice")
    assert await store.get_memory(a.id, ["someone-else"]) is None

    listed = await store.list_memories(namespace)
    assert [m.id for m in listed] == [b.id, a.id]  # newest first
    assert [m.id for m in await store.list_memories(namespace, kinds=[MemoryKind.EPISODIC])] == [b.id]
    assert [m.id for m in await store.list_memories(namespace, before=t0 + timedelta(hours=1))] == [a.id]


async def test_create_is_idempotent_on_ids(store: Store, namespace: str) -> None:
    a = mem(namespace, "first version")
    assert await store.create_memories([a], [unit(1)]) == [a.id]
    again = a.model_copy(update={"content": "second version"})
    assert await store.create_memories([again], [unit(1)]) == []
    got = await store.get_memory(a.id, [namespace])
    assert got is not None
    assert got.content == "first version"


def direction(seed: int, dim: int = 384) -> list[float]:
    """A random unit vector: hand-made axes like ``unit(1, 0)`` recur in other tests' namespaces, and a database
    that many runs wrote to (a developer's) holds more of them near the query than any oversampling reaches."""
    rng = random.Random(seed)
    v = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def toward(base: list[float], other: list[float], t: float) -> list[float]:
    v = [b + t * o for b, o in zip(base, other, strict=True)]
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


async def test_vector_index_returns_nearest(store: Store, namespace: str) -> None:
    near = mem(namespace, "near")
    mid = mem(namespace, "middle")
    far = mem(namespace, "far")
    seed = random.SystemRandom().randrange(2**32)
    query, aside, away = direction(seed), direction(seed + 1), direction(seed + 2)
    await store.create_memories([near, mid, far], [toward(query, aside, 0.1), toward(query, aside, 1.0),
                                                 toward(query, away, 3.0)])
    # the index is eventually consistent: wait until the new nodes are searchable
    deadline = time.monotonic() + 10
    while True:
        # the index is global and the filter comes after it: oversample past other namespaces' memories
        hits = await store.vector_search(query, [namespace], k=3, oversample=200)
        if len(hits) == 3 or time.monotonic() > deadline:
            break
    assert [h.memory.id for h in hits] == [near.id, mid.id, far.id], f"seed {seed}"
    assert hits[0].score > hits[1].score > hits[2].score


async def test_vector_search_filters_namespace_and_status(store: Store, namespace: str) -> None:
    other_ns = namespace + "-other"
    try:
        mine = mem(namespace, "mine")
        theirs = mem(other_ns, "theirs")
        gone = mem(namespace, "gone", status=MemoryStatus.SUPERSEDED)
        await store.create_memories([mine, theirs, gone], [unit(1, 0.2), unit(1, 0), unit(1, 0.1)])
        hits = await store.vector_search(unit(1, 0), [namespace], k=5)
        assert [h.memory.id for h in hits] == [mine.id]
    finally:
        await store.wipe_namespace(other_ns)


async def test_fulltext_index_answers(store: Store, namespace: str) -> None:
    a = mem(namespace, "The refund arrives within five business days", tags=("refund",))
    b = mem(namespace, "Paris is lovely in spring")
    await store.create_memories([a, b], [unit(1), unit(0, 1)])
    deadline = time.monotonic() + 10
    hits: list[ScoredMemory] = []
    while not hits and time.monotonic() < deadline:
        hits = await store.fulltext_search("refund days", [namespace])
    assert [h.memory.id for h in hits] == [a.id]
    # Lucene syntax in user text is searched as words, not parsed (no syntax error)
    assert await store.fulltext_search('refund AND "(unbalanced', [namespace]) is not None


async def test_a_failing_statement_rolls_back_the_whole_write(store: Store, namespace: str) -> None:
    a = mem(namespace, "must not survive")
    row = a.to_row(unit(1))
    dup = mem(namespace, "dup").to_row(unit(1))
    with pytest.raises(ConflictError):
        await store.write([
            Step("memory/create", {"rows": [row]}),
            Step("test/create_plain", {"rows": [dup, dup]}),  # the second CREATE violates the unique id
        ])
    assert await store.get_memory(a.id, [namespace]) is None


async def test_every_session_carries_the_store_bookmarks(store: Store, namespace: str) -> None:
    """Read your writes on a cluster: a commit's bookmark lands in the store's bookmark manager, and the next
    session (a read, or the next write) starts from it."""
    assert store.bookmarks is not None
    before = set(await store.bookmarks.get_bookmarks())
    a = mem(namespace, "Carol keeps bees")
    await store.create_memories([a], [unit(1, 2)])
    after_write = set(await store.bookmarks.get_bookmarks())
    assert after_write
    assert after_write != before
    assert await store.get_memory(a.id, [namespace]) is not None
    assert (await store.read_row("admin/ping")) is not None
    b = mem(namespace, "Dave keeps goats")
    await store.create_memories([b], [unit(2, 1)])
    assert set(await store.bookmarks.get_bookmarks()) - after_write
    off = Store(store.driver, store.settings.model_copy(update={"neo4j_bookmarks": False}), integrity=store.integrity)
    assert off.bookmarks is None
    assert await off.get_memory(b.id, [namespace]) is not None
