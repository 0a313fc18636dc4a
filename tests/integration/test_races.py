"""Concurrent writes through the real service on the real Neo4j: exact duplicates are stored once, an id is
created once, and ids are per namespace (one tenant can neither see, overwrite nor block another's ids)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from graphmem.models import MemoryDraft, MemoryKind, Role, Task, Turn, WriteAction, WriteResult
from graphmem.retrieval.cache import BUMP, bump_step
from graphmem.service import MemoryService
from graphmem.store import Store

CONCURRENT = 50


def draft(ns: str, content: str, **kw: Any) -> MemoryDraft:
    return MemoryDraft(namespace=ns, kind=kw.pop("kind", MemoryKind.SEMANTIC), content=content, **kw)


@pytest.fixture
async def other(store: Store) -> AsyncIterator[str]:
    """A second tenant's namespace, wiped afterwards."""
    ns = f"t-{uuid.uuid4().hex[:12]}"
    yield ns
    await store.wipe_namespace(ns)


async def at_once(service: MemoryService, batches: list[list[MemoryDraft]]) -> list[WriteResult]:
    written = await asyncio.gather(*(service.write_memories(b) for b in batches))
    return [item for batch in written for item in batch.items]


async def test_fifty_identical_writes_at_once_store_one_memory(service: MemoryService, namespace: str) -> None:
    content = "The customer's invoices go to the finance mailbox."
    items = await at_once(service, [[draft(namespace, content)] for _ in range(CONCURRENT)])
    stored = await service.store.list_memories(namespace, limit=100)
    assert [m.content for m in stored] == [content], f"{len(stored)} copies of one exact duplicate"
    assert [i.action for i in items].count(WriteAction.CREATED) == 1
    assert {i.id for i in items} == {stored[0].id}  # the others strengthened the one stored
    assert (await service.get_memory(namespace, stored[0].id)).reinforced_count == CONCURRENT - 1


async def test_exact_duplicates_in_mixed_batches_at_once(service: MemoryService, namespace: str) -> None:
    """Batches that overlap in part: each content once, whatever the interleaving."""
    # four unrelated contents: near-duplicate strengthening (a separate, best-effort path) must not be in play
    texts = ["Warehouse north ships orders on weekdays only.", "The cafeteria serves lentil soup on Fridays.",
             "Printer paper is kept in the cupboard of room 12.", "Visitors sign in at the front desk."]
    batches = [[draft(namespace, texts[i % 4]), draft(namespace, texts[(i + 1) % 4])] for i in range(12)]
    await at_once(service, batches)
    stored = sorted(m.content for m in await service.store.list_memories(namespace, limit=100))
    assert stored == sorted(texts)


async def test_one_id_written_at_once_in_one_namespace_is_created_once(bare_service: MemoryService, store: Store,
                                                                       namespace: str) -> None:
    service = bare_service  # the drafts' entities only: no entities found in the content
    batches = [[draft(namespace, f"Version {i} of the shared note.", id="shared-note", entities=(f"Owner{i}",))]
               for i in range(20)]
    items = await at_once(service, batches)
    actions = [i.action for i in items]
    assert actions.count(WriteAction.CREATED) == 1, actions
    assert set(actions) == {WriteAction.CREATED, WriteAction.EXISTS}
    winner = actions.index(WriteAction.CREATED)
    rows = await store.read("test/memories_with_id", id="shared-note")
    assert [(r["namespace"], r["content"], r["entities"]) for r in rows] == [
        (namespace, f"Version {winner} of the shared note.", [f"owner{winner}"])]  # names normalised


async def test_one_id_written_at_once_by_two_tenants_is_two_memories(bare_service: MemoryService, store: Store,
                                                                     namespace: str, other: str) -> None:
    service = bare_service
    mid = f"mem-{uuid.uuid4().hex[:6]}"
    batches = [[draft(ns, f"Note of {ns}.", id=mid, entities=(f"Person {ns}",))]
               for _ in range(10) for ns in (namespace, other)]
    items = await at_once(service, batches)
    assert [i.action for i in items].count(WriteAction.CREATED) == 2  # once per namespace, nothing refused
    rows = await store.read("test/memories_with_id", id=mid)
    assert sorted((r["namespace"], r["content"], r["entities"]) for r in rows) == sorted(
        [(ns, f"Note of {ns}.", [f"person {ns}"]) for ns in (namespace, other)])
    assert await store.read("test/cross_namespace_edges", namespaces=[namespace, other]) == []
    for ns in (namespace, other):
        assert (await service.get_memory(ns, mid)).content == f"Note of {ns}."


async def test_another_tenants_memory_id_is_not_visible_to_a_writer(service: MemoryService, namespace: str,
                                                                    other: str) -> None:
    (mine,) = (await service.write_memories([draft(namespace, "Alpha's private fact.", id="m-1")])).items
    (theirs,) = (await service.write_memories([draft(other, "Beta's own fact.", id="m-1")])).items
    assert (mine.action, theirs.action) == (WriteAction.CREATED, WriteAction.CREATED)
    assert (await service.get_memory(namespace, "m-1")).content == "Alpha's private fact."
    assert (await service.get_memory(other, "m-1")).content == "Beta's own fact."
    # provenance resolves in the writer's namespace only
    derived = await service.write_memories([draft(other, "Beta's summary.", derived_from=("m-1",))])
    edges = await service.store.read("test/cross_namespace_edges", namespaces=[namespace, other])
    assert derived.items[0].action is WriteAction.CREATED
    assert edges == []


async def test_a_predictable_task_id_cannot_be_squatted(service: MemoryService, store: Store, namespace: str,
                                                        other: str) -> None:
    tasks = service.tasks
    squat, real = await asyncio.gather(tasks.start(Task(id="task-1", namespace=namespace, title="squatter")),
                                       tasks.start(Task(id="task-1", namespace=other, title="real")))
    assert (squat.namespace, squat.title, real.namespace, real.title) == (namespace, "squatter", other, "real")
    turn = Turn(id="turn-1", task_id="task-1", seq=0, role=Role.USER, content="turn of the real tenant")
    await tasks.log_turns(other, "task-1", [turn])
    await tasks.log_turns(namespace, "task-1", [turn.model_copy(update={"content": "squatter's turn"})])
    assert [t.content for t in await tasks.turns(other, "task-1")] == ["turn of the real tenant"]
    assert [t.content for t in await tasks.turns(namespace, "task-1")] == ["squatter's turn"]
    ended = await tasks.end(other, "task-1", outcome="done")
    assert (ended.outcome, (await tasks.get(namespace, "task-1")).outcome) == ("done", None)
    written = await service.write_memories([draft(other, "From the real task.", task_id="task-1")])
    assert written.items[0].action is WriteAction.CREATED
    assert await store.read("test/cross_namespace_edges", namespaces=[namespace, other]) == []


async def test_a_request_id_replay_returns_what_the_transaction_decided(service: MemoryService,
                                                                        namespace: str) -> None:
    (first,) = (await service.write_memories([draft(namespace, "Replayed fact.")])).items
    batch = [draft(namespace, "Replayed fact.")]
    results = await asyncio.gather(*(service.write_memories(batch, request_id="rq-1") for _ in range(5)))
    assert [r.replayed for r in results].count(False) == 1
    assert {r.items for r in results} == {(WriteResult(index=0, id=first.id, action=WriteAction.STRENGTHENED,
                                                       similarity=1.0),)}


async def test_a_near_duplicate_is_found_behind_another_namespaces_memories(service: MemoryService,
                                                                             namespace: str, other: str) -> None:
    """The vector index ranks all namespaces together: 30 copies in a large tenant must not hide the one near
    duplicate of a small tenant (the dedupe lookup asks again, deeper)."""
    text = "The user prefers green tea in the morning."
    await service.write_memories([draft(other, text) for _ in range(30)], dedupe=False)
    (near,) = (await service.write_memories([draft(namespace, text.replace(".", "!"))])).items
    (again,) = (await service.write_memories([draft(namespace, text)])).items
    assert (again.action, again.id) == (WriteAction.STRENGTHENED, near.id)


async def test_a_write_does_not_wait_for_another_open_write_of_its_namespace(service: MemoryService, store: Store,
                                                                           namespace: str) -> None:
    """Every write transaction bumps its namespace's cache version last and holds that lock until it commits: a
    write must not queue behind another transaction of the same namespace that is still open (a slow batch, an
    LLM-planned reflection) just for the version counter."""
    bump = bump_step(namespace)
    async with store.driver.session(database=store.database) as session:
        tx = await session.begin_transaction()
        try:
            await tx.run(store.cypher(BUMP), **bump.params)  # an open write of this namespace, holding its bump
            written = await asyncio.wait_for(
                service.write_memories([draft(namespace, "The loading dock closes at six on Saturdays.")]), 20)
        finally:
            await tx.rollback()
    assert [i.action for i in written.items] == [WriteAction.CREATED]


async def test_a_similar_memory_is_linked_behind_another_namespaces_memories(service: MemoryService,
                                                                              namespace: str, other: str) -> None:
    """SIMILAR_TO at write: the vector index ranks all namespaces together, so 30 close copies in a large tenant
    must not hide a small tenant's one similar memory (the neighbour lookup asks again, deeper)."""
    text = "The user prefers green tea in the morning."
    await service.write_memories([draft(other, text) for _ in range(30)], dedupe=False)
    (first,) = (await service.write_memories([draft(namespace, text)])).items
    (second,) = (await service.write_memories([draft(namespace, "Every morning the user drinks a cup of green tea.")],
                                              dedupe=False)).items
    edges = await service.store.read("test/edges_of_type", namespace=namespace, type="SIMILAR_TO")
    assert [(e["source"], e["target"]) for e in edges] == [(second.id, first.id)]
