"""Reflection's write on the real Neo4j with the real embedder (the model's answers scripted): one
transaction, idempotent re-reflection, supersede, failure handling, and the queue the worker reads."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

import graphmem.reflection.service as reflection_service
from graphmem.errors import LLMOutputError, StoreError, ValidationError
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Role, Task, WriteAction, WriteResult, utcnow
from graphmem.reflection import ReflectionService
from graphmem.reflection.worker import ReflectionWorker, claim_tasks
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.service import MemoryService
from graphmem.service.planning import WritePlan
from graphmem.service.write_tx import apply_plan
from graphmem.store import Store
from graphmem.store.store import Tx
from tests.integration.reflection_support import Script, scripted_llm

MOVED: dict[str, Any] = {  # a model's answer: JSON
    "facts": [
        {"content": "The user lives in Berlin.", "kind": "semantic", "entities": ["Berlin"], "turns": [0],
         "replaces": "M1", "confidence": 0.9},
        {"content": "The user asked to change the delivery address to Berlin.", "kind": "episodic",
         "entities": [], "turns": [0, 1], "replaces": "none", "confidence": 1.0},
    ],
    "relations": [{"source": "F2", "type": "CAUSES", "target": "F1"},
                  {"source": "F1", "type": "RELATES_TO", "target": "M2"}],
    "errors": [], "improvements": ["Confirm a changed address back to the user."],
}


async def count(store: Store, namespace: str) -> dict[str, int]:
    rows = await store.read("test/count_namespace", namespace=namespace)
    return {r["what"]: r["n"] for r in rows}


async def moved_task(service: MemoryService, namespace: str) -> tuple[str, str, str]:
    """A namespace where the user lived in Paris, and an ended task in which they moved to Berlin."""
    written = await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="The user lives in Paris."),
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="The user likes morning deliveries."),
    ])
    paris, morning = (r.id for r in written.items)
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address"))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Please change my delivery address, I moved from Paris to Berlin."),
        (Role.ASSISTANT, "Done, deliveries now go to your Berlin address."),
        (Role.USER, "Thanks!"),
    ])
    await service.tasks.end(namespace, task.id, outcome="address changed")
    return task.id, paris, morning


def reflector(service: MemoryService, script: Script) -> ReflectionService:
    return ReflectionService(service, scripted_llm(service.settings, script))


async def test_reflection_writes_facts_edges_provenance_and_supersedes(
        service: MemoryService, store: Store, namespace: str) -> None:
    task_id, paris, morning = await moved_task(service, namespace)
    script = Script([MOVED])
    report = await reflector(service, script).reflect(namespace, task_id)
    prompt = script.requests[0]["messages"][1]["content"]
    assert "M1 (semantic): The user lives in Paris." in prompt or "M2 (semantic): The user lives in Paris." in prompt
    assert "Thanks!" not in prompt  # small talk dropped
    facts = {f.content: f for f in report.facts}
    berlin = facts["The user lives in Berlin."]
    assert berlin.action is WriteAction.CREATED
    assert len(report.lessons) == 1
    old = await service.get_memory(namespace, paris)
    # M1 is whichever memory the vector search ranked first; the script superseded M1
    superseded_id = report.superseded[0]
    assert superseded_id in (paris, morning)
    gone = await service.get_memory(namespace, superseded_id)
    assert gone.status is MemoryStatus.SUPERSEDED
    assert gone.valid_until is not None
    assert report.llm.calls == 1
    assert report.llm.prompt_tokens == 100
    c = await count(store, namespace)
    assert c["SUPERSEDES"] == 1
    assert c["CAUSES"] == 1
    assert c["RELATES_TO"] == 1
    assert c["FROM_TASK"] == 3
    assert c["DERIVED_FROM"] == 3
    task = await service.tasks.get(namespace, task_id)
    assert task.reflected_at is not None
    assert old.id == paris


async def test_supersede_hides_the_old_fact_from_search(service: MemoryService, store: Store,
                                                        namespace: str) -> None:
    task_id, paris, _ = await moved_task(service, namespace)
    script = Script([MOVED])
    service_ = reflector(service, script)
    related = await service_.related_memories(namespace, (await service.tasks.turns(namespace, task_id)))
    answer = dict(MOVED)
    m_paris = f"M{[m.id for m in related].index(paris) + 1}"
    answer["facts"] = [{**MOVED["facts"][0], "replaces": m_paris}, MOVED["facts"][1]]
    answer["relations"] = [MOVED["relations"][0]]
    script.answers = [Script([answer]).answers[0]]
    report = await service_.reflect(namespace, task_id)
    assert report.superseded == [paris]
    retrieval = RetrievalService(store, service.embedder, service.settings)
    response = await retrieval.search("Where does the user live?", SearchOptions(namespaces=(namespace,), k=3))
    contents = [r.memory.content for r in response.results]
    assert "The user lives in Berlin." in contents
    assert "The user lives in Paris." not in contents
    history = await retrieval.search("Where does the user live?", SearchOptions(
        namespaces=(namespace,), k=5, statuses=(MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)))
    assert "The user lives in Paris." in [r.memory.content for r in history.results]


async def test_re_reflecting_is_idempotent(service: MemoryService, store: Store, namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    # no "replaces": on the forced re-run the memories shown (and so what M1 means) differ
    answer = {**MOVED, "facts": [{**f, "replaces": "none"} for f in MOVED["facts"]]}
    script = Script([answer, answer])
    reflection = reflector(service, script)
    first = await reflection.reflect(namespace, task_id)
    before = await store.read("test/namespace_fingerprint", namespace=namespace)
    replay = await reflection.reflect(namespace, task_id)
    assert replay.replayed
    assert len(script.requests) == 1
    assert [f.id for f in replay.facts] == [f.id for f in first.facts]
    forced = await reflection.reflect(namespace, task_id, force=True)
    assert len(script.requests) == 2
    assert not forced.replayed
    assert {f.action for f in forced.facts} == {WriteAction.EXISTS}
    after = await store.read("test/namespace_fingerprint", namespace=namespace)
    assert after == before


async def test_failure_between_statements_leaves_nothing(service: MemoryService, store: Store, namespace: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    task_id, paris, _ = await moved_task(service, namespace)
    before = await count(store, namespace)
    real_apply = apply_plan  # what reflection_service calls, until patched below

    async def failing_apply(tx: Tx, plan: WritePlan, *, dedupe: bool, at: datetime) -> list[WriteResult]:
        results = await real_apply(tx, plan, dedupe=dedupe, at=at)
        await tx.run("test/fail")
        return results

    monkeypatch.setattr(reflection_service, "apply_plan", failing_apply)
    with pytest.raises(StoreError):
        await reflector(service, Script([MOVED])).reflect(namespace, task_id)
    assert await count(store, namespace) == before
    assert (await service.get_memory(namespace, paris)).status is MemoryStatus.ACTIVE
    state = await ReflectionService(service, None).status(namespace, task_id)
    assert state["status"] == "pending"
    assert state["attempts"] == 1
    assert "StoreError" in state["error"]


async def test_garbage_twice_is_a_typed_error_and_writes_nothing(service: MemoryService, store: Store,
                                                                 namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    before = await count(store, namespace)
    script = Script(["I think the user moved.", '{"facts": [{"content": "x"}]}'])
    with pytest.raises(LLMOutputError):
        await reflector(service, script).reflect(namespace, task_id)
    assert len(script.requests) == 2  # one repair retry
    assert "not valid" in script.requests[1]["messages"][-1]["content"]
    assert await count(store, namespace) == before
    assert (await service.tasks.get(namespace, task_id)).reflected_at is None


async def test_repair_retry_fixes_an_unknown_id(service: MemoryService, namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    bad = {**MOVED, "relations": [{"source": "F1", "type": "RELATES_TO", "target": "the address"}]}
    script = Script([bad, MOVED])
    report = await reflector(service, script).reflect(namespace, task_id)
    assert "unknown id 'the address'" in script.requests[1]["messages"][-1]["content"]
    assert report.llm.calls == 2
    assert len(report.facts) == 2


async def test_queue_claim_and_release(service: MemoryService, store: Store, namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    state = await ReflectionService(service, None).status(namespace, task_id)
    assert state["status"] == "pending"  # ending a task queues it
    rows = await store.read("test/reflection_pending", namespace=namespace)
    assert [r["id"] for r in rows] == [task_id]


async def test_worker_runs_a_batch_when_due_and_its_queue_survives_a_restart(
        service: MemoryService, store: Store, namespace: str) -> None:
    settings = service.settings.model_copy(update={"reflection_batch_size": 2, "reflection_interval_s": 3600.0})
    service_ = MemoryService(store, service.embedder, settings)
    first, _, _ = await moved_task(service_, namespace)
    script = Script([MOVED, MOVED])
    worker = ReflectionWorker(reflector(service_, script), namespaces=[namespace])
    assert await worker.run_once() == 0  # one ended task, batch of 2, interval not over: not due
    second = await service_.tasks.start(Task(namespace=namespace, title="second"))
    await service_.tasks.log_turns(namespace, second.id, [(Role.USER, "I moved from Paris to Berlin."),
                                                          (Role.ASSISTANT, "Noted.")])
    await service_.tasks.end(namespace, second.id)
    # a new worker (as after a restart) finds the queue in Neo4j
    restarted = ReflectionWorker(reflector(service_, script), namespaces=[namespace])
    assert await restarted.run_once() == 2
    for task_id in (first, second.id):
        assert (await service_.tasks.get(namespace, task_id)).reflected_at is not None
    assert await restarted.run_once(force=True) == 0  # nothing left


async def test_worker_takes_over_a_stale_claim_and_records_failures(
        service: MemoryService, store: Store, namespace: str) -> None:
    settings = service.settings.model_copy(update={"reflection_max_attempts": 2})
    service_ = MemoryService(store, service.embedder, settings)
    task_id, _, _ = await moved_task(service_, namespace)
    claimed = await claim_tasks(store, limit=10, now=utcnow() - timedelta(hours=2),
                                stale_before=utcnow() - timedelta(hours=3), worker="dead", namespaces=[namespace])
    assert [c["id"] for c in claimed] == [task_id]  # a worker claimed it, then died
    garbage = Script(["no idea"] * 4)
    worker = ReflectionWorker(reflector(service_, garbage), namespaces=[namespace])
    assert await worker.run_once(force=True) == 0
    state = await ReflectionService(service_, None).status(namespace, task_id)
    assert (state["status"], state["attempts"]) == ("pending", 1)
    assert "LLMOutputError" in state["error"]
    assert await worker.run_once(force=True) == 0
    state = await ReflectionService(service_, None).status(namespace, task_id)
    assert (state["status"], state["attempts"]) == ("failed", 2)  # left for a person, error kept
    assert worker.stats.failed == 2


async def test_a_fact_copied_from_the_prompt_strengthens_nothing(service: MemoryService, namespace: str) -> None:
    task_id, paris, _ = await moved_task(service, namespace)
    copy = {"content": "The user lives in Paris.", "kind": "semantic", "turns": [0], "confidence": 1.0}
    report = await reflector(service, Script([{**MOVED, "facts": [*MOVED["facts"], copy]}])).reflect(
        namespace, task_id)
    assert report.copied_facts == 1
    assert [(f.id, f.action) for f in report.facts if f.content == copy["content"]] == [(paris, WriteAction.EXISTS)]
    assert (await service.get_memory(namespace, paris)).reinforced_count == 0


async def test_a_stopping_worker_hands_its_claims_back(service: MemoryService, namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    script = Script([MOVED])
    worker = ReflectionWorker(reflector(service, script), namespaces=[namespace])
    worker._stopping.set()  # as if stop() came while the batch was claimed
    assert await worker.run_once(force=True) == 0
    assert (await ReflectionService(service, None).status(namespace, task_id))["status"] == "pending"
    assert script.requests == []


async def test_an_ended_task_without_turns_fails_at_once_with_its_reason(service: MemoryService,
                                                                        namespace: str) -> None:
    reflection = reflector(service, Script([]))
    still_open = await service.tasks.start(Task(namespace=namespace, title="nothing said yet"))
    with pytest.raises(ValidationError, match="no turns"):
        await reflection.reflect(namespace, still_open.id)
    assert (await reflection.status(namespace, still_open.id))["error"] is None  # open: turns may still come
    await service.tasks.end(namespace, still_open.id)
    with pytest.raises(ValidationError, match="no turns"):
        await reflection.reflect(namespace, still_open.id)
    state = await reflection.status(namespace, still_open.id)
    assert (state["status"], state["attempts"]) == ("failed", 1)  # out of the worker's queue: no retry can help
    assert "no turns to reflect on" in state["error"]


BERLIN = {"facts": [{"content": "The user lives in Berlin.", "kind": "semantic", "entities": ["Berlin"], "turns": [0],
                     "replaces": "none", "confidence": 0.9}], "relations": [], "errors": [], "improvements": []}
"""An answer that names nothing outside its own task (MOVED supersedes memories moved_task writes)."""


async def test_turns_after_a_reflection_of_an_open_task_are_reflected_when_it_ends(service: MemoryService,
                                                                                  namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address"))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Please change my delivery address, I moved from Paris to Berlin."),
        (Role.ASSISTANT, "Done, deliveries now go to your Berlin address.")])
    script = Script([BERLIN, BERLIN])
    reflection = reflector(service, script)
    assert not (await reflection.reflect(namespace, task.id)).replayed  # while open
    await service.tasks.log_turns(namespace, task.id, [(Role.USER, "Also, ring twice: the bell is broken.")])
    await service.tasks.end(namespace, task.id)
    assert (await reflection.status(namespace, task.id))["status"] == "pending"  # queued again: a turn came after
    again = await reflection.reflect(namespace, task.id)
    assert not again.replayed
    assert len(script.requests) == 2
    assert "ring twice" in script.requests[1]["messages"][1]["content"]
    assert (await reflection.status(namespace, task.id))["status"] == "done"
    assert (await reflection.reflect(namespace, task.id)).replayed  # nothing new since: the report is replayed
    assert len(script.requests) == 2


async def test_a_task_reflected_while_open_and_ended_without_new_turns_stays_done(service: MemoryService,
                                                                                 namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address"))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "Please change my delivery address, I moved from Paris to Berlin.")])
    reflection = reflector(service, Script([BERLIN]))
    await reflection.reflect(namespace, task.id)
    await service.tasks.end(namespace, task.id)
    assert (await reflection.status(namespace, task.id))["status"] == "done"
    assert (await reflection.reflect(namespace, task.id)).replayed


async def test_an_open_task_reflected_again_after_new_turns_is_not_replayed(service: MemoryService,
                                                                           namespace: str) -> None:
    task = await service.tasks.start(Task(namespace=namespace, title="Change the delivery address"))
    await service.tasks.log_turns(namespace, task.id, [(Role.USER, "I moved from Paris to Berlin.")])
    script = Script([BERLIN, BERLIN])
    reflection = reflector(service, script)
    await reflection.reflect(namespace, task.id)
    assert (await reflection.reflect(namespace, task.id)).replayed  # no turn since
    await service.tasks.log_turns(namespace, task.id, [(Role.USER, "Also, ring twice: the bell is broken.")])
    assert not (await reflection.reflect(namespace, task.id)).replayed
    assert len(script.requests) == 2
