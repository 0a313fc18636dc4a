"""The write path on the real Neo4j with the real embedder: batches, provenance, dedupe, edits, expiry."""

from __future__ import annotations

import array
import asyncio
from collections.abc import Sequence
from datetime import timedelta

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ConflictError, NotFoundError, StoreError, ValidationError
from graphmem.lifecycle.sweeper import Sweeper
from graphmem.models import (
    MemoryDraft,
    MemoryKind,
    MemoryStatus,
    Relation,
    RelationType,
    Role,
    Task,
    WriteAction,
    utcnow,
)
from graphmem.service import MemoryService, parse_items
from graphmem.service.browse import BrowseService
from graphmem.store import Step, Store


def draft(ns: str, content: str, **kw: object) -> MemoryDraft:
    return MemoryDraft(namespace=ns, kind=kw.pop("kind", MemoryKind.SEMANTIC), content=content, **kw)  # type: ignore[arg-type]


async def count(store: Store, namespace: str) -> dict[str, int]:
    rows = await store.read("test/count_namespace", namespace=namespace)
    return {r["what"]: r["n"] for r in rows}


async def test_batch_with_entities_task_and_provenance(bare_service: MemoryService, store: Store,
                                                       namespace: str) -> None:
    service = bare_service  # the caller's entities only (test_graph_construction covers what a write adds)
    task = await service.tasks.start(Task(namespace=namespace, agent="support-bot", title="refund question"))
    turns = await service.tasks.log_turns(namespace, task.id, [(Role.USER, "When does my refund arrive?"),
                                                              (Role.ASSISTANT, "Within 5 business days.")])
    result = await service.write_memories([
        draft(namespace, "Refunds arrive within five business days", entities=("refund policy",),
              derived_from=(turns[1].id,), task_id=task.id, source="reflection:1"),
        draft(namespace, "The user cares about refund timing", entities=("user", "refund policy"),
              derived_from=(turns[0].id,), task_id=task.id),
    ])
    assert [r.action for r in result.items] == [WriteAction.CREATED, WriteAction.CREATED]
    c = await count(store, namespace)
    assert c == {"Memory": 2, "Entity": 2, "Task": 1, "Turn": 2, "ABOUT": 3, "DERIVED_FROM": 2, "FROM_TASK": 2,
                 "HAS_TURN": 2}
    got = await service.get_memory(namespace, result.items[0].id)
    assert got.sources == ("reflection:1",)
    assert got.content_hash is not None


async def test_near_duplicate_strengthens_instead_of_copying(service: MemoryService, store: Store,
                                                             namespace: str) -> None:
    first = await service.write_memories([draft(namespace, "The user's favourite colour is blue", confidence=0.6,
                                                source="a")])
    original = first.items[0].id
    again = await service.write_memories([
        draft(namespace, "The user's favorite color is blue.", confidence=1.0, source="b"),
        draft(namespace, "The user's favourite colour is blue", source="c"),  # exact repeat (hash path)
        draft(namespace, "The user lives in Lisbon and works as a nurse"),
    ])
    assert [r.action for r in again.items] == [WriteAction.STRENGTHENED, WriteAction.STRENGTHENED,
                                               WriteAction.CREATED]
    assert again.items[0].id == original == again.items[1].id
    assert again.items[0].similarity is not None
    assert again.items[0].similarity >= 0.92
    memory = await service.get_memory(namespace, original)
    assert memory.confidence > 0.6
    assert memory.reinforced_count == 2
    assert memory.sources == ("a", "b", "c")
    assert (await count(store, namespace))["Memory"] == 2


async def test_duplicates_inside_one_batch_and_other_kinds(service: MemoryService, namespace: str) -> None:
    res = await service.write_memories([
        draft(namespace, "Bob adopted a dog named Rex"),
        draft(namespace, "Bob adopted a dog called Rex"),
        draft(namespace, "Bob adopted a dog named Rex", kind=MemoryKind.EPISODIC),  # another kind: kept apart
    ])
    assert [r.action for r in res.items] == [WriteAction.CREATED, WriteAction.STRENGTHENED, WriteAction.CREATED]
    assert res.items[1].id == res.items[0].id
    off = await service.write_memories([draft(namespace, "Bob adopted a dog named Rex")], dedupe=False)
    assert off.items[0].action == WriteAction.CREATED


async def test_request_id_replay_and_conflict(service: MemoryService, store: Store, namespace: str) -> None:
    batch = [draft(namespace, "Alice is allergic to peanuts"), draft(namespace, "Alice runs marathons")]
    first = await service.write_memories(batch, request_id="req-1")
    before = await count(store, namespace)
    replay = await service.write_memories(batch, request_id="req-1")
    assert replay.replayed
    assert not first.replayed
    assert replay.items == first.items
    assert await count(store, namespace) == before
    with pytest.raises(ConflictError, match="req-1"):
        await service.write_memories([draft(namespace, "Alice hates running")], request_id="req-1")
    assert await count(store, namespace) == before


async def test_request_keys_expire(service: MemoryService, namespace: str) -> None:
    service.settings = service.settings.model_copy(update={"idempotency_ttl_s": 1})
    await service.write_memories([draft(namespace, "Carol plays the cello")], request_id="short")
    import asyncio

    await asyncio.sleep(1.2)
    fresh = await service.write_memories([draft(namespace, "Carol teaches maths")], request_id="short")
    assert not fresh.replayed
    assert fresh.items[0].action == WriteAction.CREATED


@pytest.mark.parametrize(("item", "message"), [
    ({"namespace": "ns", "kind": "semantic", "content": ""}, "content"),
    ({"namespace": "ns", "kind": "semantic", "content": "x" * 8001}, "content"),
    ({"namespace": "ns", "kind": "dream", "content": "x"}, "kind"),
    ({"namespace": "Bad NS!", "kind": "semantic", "content": "x"}, "namespace"),
    ({"namespace": "ns", "kind": "semantic", "content": "x", "confidence": float("nan")}, "confidence"),
    ({"namespace": "ns", "kind": "semantic", "content": "   "}, "blank"),
])
def test_bad_items_name_the_item(item: dict[str, object], message: str) -> None:
    good = {"namespace": "ns", "kind": "semantic", "content": "fine"}
    with pytest.raises(ValidationError, match=message) as info:
        parse_items(MemoryDraft, [good, good, item])
    assert info.value.item == 2


async def test_unknown_reference_refuses_the_whole_batch(service: MemoryService, store: Store,
                                                         namespace: str) -> None:
    with pytest.raises(ValidationError, match="item 1: derived_from id 'nope'"):
        await service.write_memories([draft(namespace, "fine"), draft(namespace, "bad", derived_from=("nope",))])
    with pytest.raises(ValidationError, match="task 'no-task' not found"):
        await service.write_memories([draft(namespace, "bad", task_id="no-task")])
    with pytest.raises(ValidationError, match="empty batch"):
        await service.write_memories([])
    assert await count(store, namespace) == {}


async def test_failure_inside_the_transaction_leaves_nothing(service: MemoryService, store: Store,
                                                             namespace: str) -> None:
    class FailingStore(Store):
        async def transact(self, label, work):  # type: ignore[no-untyped-def]
            async def failing(tx):  # type: ignore[no-untyped-def]
                result = await work(tx)
                await tx.run("test/fail")
                return result

            return await super().transact(f"{label}+test/fail", failing)

    broken = MemoryService(FailingStore(store.driver, store.settings), service.embedder, service.settings)
    task = await service.tasks.start(Task(namespace=namespace))
    before = await count(store, namespace)
    with pytest.raises(StoreError, match="test/fail"):
        await broken.write_memories([draft(namespace, "one", entities=("x",), task_id=task.id),
                                     draft(namespace, "two")])
    assert await count(store, namespace) == before


async def test_relate_unrelate_with_real_types(service: MemoryService, store: Store, namespace: str) -> None:
    res = await service.write_memories([draft(namespace, "It rained all day"), draft(namespace, "The match was off")])
    a, b = (r.id for r in res.items)
    new = await service.relate(namespace, [Relation(source_id=a, target_id=b, type=RelationType.CAUSES, weight=0.8)])
    assert new == 1
    assert await service.relate(namespace, [Relation(source_id=a, target_id=b, type=RelationType.CAUSES,
                                                     weight=0.9)]) == 1  # updated in place, not duplicated
    edges = await store.read("relation/of_memory", id=a, namespace=namespace)
    assert [(e["type"], e["weight"]) for e in edges] == [("CAUSES", 0.9)]
    with pytest.raises(ValidationError, match="itself"):
        await service.relate(namespace, [Relation(source_id=a, target_id=a, type=RelationType.CAUSES)])
    with pytest.raises(ValidationError, match="not found"):
        await service.relate(namespace, [Relation(source_id=a, target_id="ghost", type=RelationType.CAUSES)])
    with pytest.raises(ValueError, match="MAGIC"):
        Relation(source_id=a, target_id=b, type="MAGIC")  # type: ignore[arg-type]
    assert await service.unrelate(namespace, a, b, "CAUSES") is True
    assert await service.unrelate(namespace, a, b, "CAUSES") is False


async def test_relating_supersedes_marks_the_old_fact_over(service: MemoryService, namespace: str) -> None:
    res = await service.write_memories([draft(namespace, "The standup is at 9:00."),
                                        draft(namespace, "The standup moved to 10:30.")])
    old, new = (r.id for r in res.items)
    assert await service.relate(namespace, [Relation(source_id=new, target_id=old,
                                                     type=RelationType.SUPERSEDES)]) == 1
    gone = await service.get_memory(namespace, old)  # still readable (and still verifies: re-signed)
    assert gone.status is MemoryStatus.SUPERSEDED
    assert gone.valid_until is not None
    assert (await service.get_memory(namespace, new)).status is MemoryStatus.ACTIVE
    assert await service.relate(namespace, [Relation(source_id=new, target_id=old, type=RelationType.SUPERSEDES)
                                            ]) == 1  # again: nothing moves
    assert (await service.get_memory(namespace, old)).valid_until == gone.valid_until


async def test_update_reembeds_and_soft_delete_restore_purge(service: MemoryService, store: Store,
                                                             namespace: str) -> None:
    (item,) = (await service.write_memories([draft(namespace, "Dave lives in Paris")])).items
    before = await service.get_memory(namespace, item.id)
    updated = await service.update_memory(namespace, item.id, content="Dave lives in Berlin", tags=["home"])
    assert updated.content == "Dave lives in Berlin"
    assert updated.tags == ("home",)
    assert updated.content_hash != before.content_hash
    hits = await store.vector_search(service.embedder.embed_query("Which city is Dave in? Berlin"), [namespace], k=1)
    assert hits[0].memory.content == "Dave lives in Berlin"
    with pytest.raises(ValidationError):
        await service.update_memory(namespace, item.id, content="")
    start = utcnow()
    await service.update_memory(namespace, item.id, valid_from=start)
    for until in (start, start - timedelta(days=1)):  # against the stored start: never valid
        with pytest.raises(ValidationError, match="must be after valid_from"):
            await service.update_memory(namespace, item.id, valid_until=until)
    await service.update_memory(namespace, item.id, valid_until=start + timedelta(days=1))
    with pytest.raises(ValidationError, match="must be after valid_from"):  # a new start past the stored end
        await service.update_memory(namespace, item.id, valid_from=start + timedelta(days=2))
    assert (await service.get_memory(namespace, item.id)).valid_until == start + timedelta(days=1)
    cleared = await service.update_memory(namespace, item.id, valid_from=start + timedelta(days=2),
                                          clear_valid_until=True)
    assert (cleared.valid_from, cleared.valid_until) == (start + timedelta(days=2), None)

    assert await service.purge_memories(namespace, [item.id]) == 0  # only soft-deleted memories are purged
    assert await service.delete_memories(namespace, [item.id]) == [item.id]
    with pytest.raises(NotFoundError):
        await service.get_memory(namespace, item.id)
    assert [m.id for m in await store.list_memories(namespace, statuses=[MemoryStatus.DELETED])] == [item.id]
    assert await service.restore_memories(namespace, [item.id]) == [item.id]
    assert (await service.get_memory(namespace, item.id)).status == MemoryStatus.ACTIVE
    await service.delete_memories(namespace, [item.id])
    assert await service.purge_memories(namespace, [item.id]) == 1
    assert await count(store, namespace) == {}


async def test_working_memory_expires(service: MemoryService, store: Store, namespace: str) -> None:
    now = utcnow()
    res = await service.write_memories([
        draft(namespace, "scratch: step 2 of 5", kind=MemoryKind.WORKING, expires_at=now - timedelta(seconds=1)),
        draft(namespace, "scratch: current file is main.py", kind=MemoryKind.WORKING,
              expires_at=now + timedelta(hours=1)),
    ])
    gone, live = (r.id for r in res.items)
    with pytest.raises(NotFoundError):
        await service.get_memory(namespace, gone)
    assert [m.id for m in await store.list_memories(namespace)] == [live]
    hits = await store.vector_search(service.embedder.embed_query("scratch step"), [namespace], k=5)
    assert gone not in {h.memory.id for h in hits}
    assert (await BrowseService(store).stats(namespace)).memories == {"working/active": 1, "working/expired": 1}
    assert (await Sweeper.of(service).run(namespace)).expired == 1  # the life cycle's sweep, one namespace
    assert (await count(store, namespace))["Memory"] == 1


async def test_task_log(service: MemoryService, namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, agent="a1"))
    assert await service.tasks.start(Task(namespace=namespace, id=task.id, agent="a1")) == task  # a retry
    with pytest.raises(ConflictError, match="another agent or title"):
        await service.tasks.start(Task(namespace=namespace, id=task.id, agent="a1", title="something else"))
    with pytest.raises(ConflictError, match="another agent or title"):
        await service.tasks.start(Task(namespace=namespace, id=task.id, agent="a2"))
    await service.tasks.log_turns(namespace, task.id, [(Role.USER, "hi")])
    await service.tasks.log_turns(namespace, task.id, [(Role.ASSISTANT, "hello"), (Role.USER, "bye")])
    turns = await service.tasks.turns(namespace, task.id)
    assert [(t.seq, t.content) for t in turns] == [(0, "hi"), (1, "hello"), (2, "bye")]
    ended = await service.tasks.end(namespace, task.id, outcome="greeted")
    assert ended.status == "ended"
    assert ended.outcome == "greeted"
    for retry in (None, "greeted"):  # ending again: the task as it is
        assert await service.tasks.end(namespace, task.id, outcome=retry) == ended
    with pytest.raises(ConflictError, match="another outcome"):
        await service.tasks.end(namespace, task.id, outcome="waved")
    assert (await service.tasks.get(namespace, task.id)).outcome == "greeted"
    with pytest.raises(ConflictError, match="ended"):
        await service.tasks.log_turns(namespace, task.id, [(Role.USER, "again?")])
    with pytest.raises(NotFoundError):
        await service.tasks.log_turns(namespace, "missing", [(Role.USER, "x")])
    with pytest.raises(NotFoundError):
        await service.tasks.get(namespace + "-other", task.id)  # namespaces do not leak



def _float32(values: list[float]) -> list[float]:
    return [float(v) for v in array.array("f", values)]


class _Wide:
    """The real embedder, its floats nudged past 32-bit precision (the model's own are exact 32-bit values, so
    a store that kept 64 bits would be indistinguishable with them)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name, self.dimension = inner.model_name, inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [[x + 1e-12 for x in v] for v in self.inner.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


async def test_embeddings_are_stored_as_32_bit_floats(store: Store, embedder: Embedder, migrated: Settings,
                                                      namespace: str) -> None:
    async def stored(memory_id: str) -> list[float]:
        (row,) = await store.read("test/embedding_of", id=memory_id)
        return list(row["embedding"])

    wide = _Wide(embedder)
    service = MemoryService(store, wide, migrated)
    (item,) = (await service.write_memories([draft(namespace, "Gus repairs old radios")])).items
    written = wide.embed_documents(["Gus repairs old radios"])[0]
    assert await stored(item.id) == _float32(written) != written
    await service.update_memory(namespace, item.id, content="Gus repairs old televisions")
    assert await stored(item.id) == _float32(wide.embed_documents(["Gus repairs old televisions"])[0])
    third = [0.1 * i for i in range(embedder.dimension)]
    await store.write([Step("admin/set_embeddings", {"rows": [{"id": item.id, "embedding": third}]})])
    assert await stored(item.id) == _float32(third) != third


async def test_concurrent_appends_to_one_task_number_their_turns_apart(service: MemoryService,
                                                                        namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, agent="a1"))
    await asyncio.gather(*(service.tasks.log_turns(namespace, task.id, [(Role.USER, f"message {i}"),
                                                                        (Role.ASSISTANT, f"reply {i}")])
                           for i in range(6)))
    turns = await service.tasks.turns(namespace, task.id)
    assert sorted(t.seq for t in turns) == list(range(12))  # no number taken twice
    by_seq = [t.content for t in sorted(turns, key=lambda t: t.seq)]
    for first, second in zip(by_seq[::2], by_seq[1::2], strict=True):  # each append keeps its turns together
        assert second == first.replace("message", "reply")


async def test_a_blank_turn_is_refused_and_nothing_of_its_batch_is_logged(service: MemoryService,
                                                                           namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, agent="a1"))
    for blank in ("", "   \n"):
        with pytest.raises(ValidationError, match="item 1: content is blank"):
            await service.tasks.log_turns(namespace, task.id, [(Role.USER, "hi"), (Role.ASSISTANT, blank)])
    assert await service.tasks.turns(namespace, task.id) == []
