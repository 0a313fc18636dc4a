"""The reflection queue under concurrency and failure, on the real Neo4j: a task is claimed by one worker only,
and whatever one task does, the worker records it on that task and goes on with the rest."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import graphmem.reflection.service as reflection_service
from graphmem.models import Role, Task, utcnow
from graphmem.reflection import ReflectionService
from graphmem.reflection.plan import plan_reflection
from graphmem.reflection.worker import STALE_AFTER, ReflectionWorker, claim_tasks
from graphmem.service import MemoryService
from graphmem.store import Step
from tests.integration.reflection_support import Script, scripted_llm
from tests.integration.test_reflection import MOVED, moved_task


async def ended_task(service: MemoryService, namespace: str, title: str, *, turns: bool = True) -> str:
    task = await service.tasks.start(Task(namespace=namespace, title=title))
    if turns:
        await service.tasks.log_turns(namespace, task.id, [(Role.USER, "I moved from Paris to Berlin."),
                                                           (Role.ASSISTANT, "Noted, Berlin it is.")])
    await service.tasks.end(namespace, task.id)
    return task.id


async def state(service: MemoryService, namespace: str, task_id: str) -> dict[str, Any]:
    return await ReflectionService(service, None).status(namespace, task_id)


async def test_concurrent_claimers_claim_each_task_once(service: MemoryService, namespace: str) -> None:
    ids = {await ended_task(service, namespace, f"task {i}", turns=False) for i in range(12)}
    for _ in range(3):  # rounds: the tasks go back to the queue between them
        now = utcnow()
        claims = await asyncio.gather(*(claim_tasks(service.store, worker=f"w{i}", limit=12, now=now,
                                                    stale_before=now - STALE_AFTER, namespaces=[namespace])
                                        for i in range(6)))
        claimed = [c["id"] for claim in claims for c in claim]
        assert sorted(claimed) == sorted(ids), "a task was claimed by two workers (or by none)"
        for i, claim in enumerate(claims):
            await service.store.write([Step("reflection/release", {
                "rows": claim, "worker": f"w{i}"})])
    assert {(await state(service, namespace, t))["status"] for t in ids} == {"pending"}


async def test_a_task_that_raises_anything_is_recorded_and_the_batch_goes_on(
        service: MemoryService, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    broken, _, _ = await moved_task(service, namespace)
    fine = await ended_task(service, namespace, "fine")
    real = plan_reflection  # what reflection_service calls, until patched below

    def plan_or_bug(output: Any, **kw: Any) -> Any:
        if kw["task_id"] == broken:
            raise RuntimeError("a bug in planning")
        return real(output, **kw)

    monkeypatch.setattr(reflection_service, "plan_reflection", plan_or_bug)
    worker = ReflectionWorker(ReflectionService(service, scripted_llm(service.settings, Script([MOVED, MOVED]))),
                              namespaces=[namespace])
    assert await worker.run_once(force=True) == 1
    failed = await state(service, namespace, broken)
    assert (failed["status"], failed["attempts"]) == ("pending", 1)
    assert "RuntimeError: a bug in planning" in failed["error"]
    assert (await state(service, namespace, fine))["status"] == "done"
    assert worker.stats.failed == 1


async def test_a_task_that_cannot_be_reflected_is_not_left_claimed(service: MemoryService, namespace: str) -> None:
    empty = await ended_task(service, namespace, "no turns", turns=False)
    worker = ReflectionWorker(ReflectionService(service, scripted_llm(service.settings, Script([]))),
                              namespaces=[namespace])
    assert await worker.run_once(force=True) == 0
    recorded = await state(service, namespace, empty)
    assert (recorded["status"], recorded["attempts"]) == ("failed", 1)  # ended: no turn can come, no retry helps
    assert "no turns" in recorded["error"]


async def test_invalid_items_of_an_answer_are_dropped_not_fatal(service: MemoryService, namespace: str) -> None:
    task_id, _, _ = await moved_task(service, namespace)
    facts = [{**MOVED["facts"][0], "entities": ["Berlin", "x" * 200]}, MOVED["facts"][1],
             {"content": "   ", "kind": "semantic", "turns": [0], "confidence": 0.5}]
    answer = {**MOVED, "facts": facts, "relations": [{"source": "F3", "type": "RELATES_TO", "target": "F1"}],
              "errors": ["y" * 9000], "improvements": [" ", "Confirm a changed address back to the user."]}
    script = Script([answer, answer])  # the blank lesson asks for a repair first; on the last try it is dropped
    report = await ReflectionService(service, scripted_llm(service.settings, script)).reflect(namespace, task_id)
    assert len(script.requests) == 2
    assert report.dropped_items == 2  # the blank fact and the over-long lesson
    assert [f.content for f in report.facts] == [MOVED["facts"][0]["content"], MOVED["facts"][1]["content"]]
    assert [lesson.content for lesson in report.lessons] == ["Confirm a changed address back to the user."]
    assert report.edges == []  # the only edge named the dropped fact
    berlin = await service.get_memory(namespace, report.facts[0].id)
    assert berlin.content == "The user lives in Berlin."
    assert (await state(service, namespace, task_id))["status"] == "done"
