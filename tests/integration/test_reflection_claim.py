"""The reflection queue under concurrency and failure, on the real Neo4j: a task is claimed by one worker only,
and whatever one task does, the worker records it on that task and goes on with the rest; what a store outage
kept it from recording (or giving back) it records and gives back once the store answers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx
import pytest

import graphmem.reflection.service as reflection_service
import graphmem.reflection.worker as reflection_worker
from graphmem.errors import StoreUnavailableError
from graphmem.llm import LLMClient
from graphmem.models import Role, Task, utcnow
from graphmem.reflection import ReflectionService
from graphmem.reflection.plan import plan_reflection
from graphmem.reflection.worker import STALE_AFTER, ReflectionWorker, claim_tasks
from graphmem.service import MemoryService
from graphmem.store import Step, Store
from graphmem.store.store import Tx
from tests.integration.reflection_support import Script, scripted_llm
from tests.integration.test_reflection import MOVED, moved_task

T = TypeVar("T")


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


class BlippingStore(Store):
    """The real store, but every call fails as a dropped connection while ``down`` (Neo4j gone for a while)."""

    down = False

    def _check(self) -> None:
        if self.down:
            raise StoreUnavailableError("Neo4j not reachable (a blip of this test)")

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self._check()
        return await super().read(name, **params)

    async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
        self._check()
        return await super().read_row(name, **params)

    async def write(self, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        self._check()
        return await super().write(steps)

    async def transact(self, label: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        self._check()
        return await super().transact(label, work)


def blipping(service: MemoryService, namespace: str, script: Script) -> tuple[BlippingStore, ReflectionWorker]:
    """A worker whose store goes down while the LLM answers its first request."""
    store = BlippingStore(service.store.driver, service.settings, integrity=service.store.integrity)

    def answer_then_drop(request: httpx.Request) -> httpx.Response:
        store.down = store.down or not script.requests
        return script(request)

    llm = LLMClient(service.settings.model_copy(update={"llm_base_url": "http://scripted.invalid/v1"}), max_retries=0,
                    http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer_then_drop)))
    reflection = ReflectionService(MemoryService(store, service.embedder, service.settings), llm)
    return store, ReflectionWorker(reflection, namespaces=[namespace])


async def test_a_failure_the_store_could_not_record_is_recorded_once_it_is_back(
        service: MemoryService, namespace: str) -> None:
    """Neo4j away during a task's LLM call left the task 'running' for STALE_AFTER (30 minutes), its failure
    unrecorded; the worker now records it, and gives back the batch's other task, at its first cycle after."""
    tasks = {(await moved_task(service, namespace))[0], await ended_task(service, namespace, "second")}
    settings = service.settings.model_copy(update={"reflection_batch_size": 2, "reflection_max_attempts": 1})
    store, worker = blipping(MemoryService(service.store, service.embedder, settings), namespace,
                             Script([MOVED, MOVED, MOVED]))
    assert await worker.run_once(force=True) == 0  # the first task's write found the store gone
    assert [(s["status"], s["attempts"]) for s in [await state(service, namespace, t) for t in tasks]] == [
        ("running", 0), ("running", 0)]
    with pytest.raises(StoreUnavailableError):  # still away: the worker's loop logs it and polls again
        await worker.run_once(force=True)

    store.down = False
    assert await worker.run_once(force=True) == 1  # records the failure, gives the other back, then reflects it
    after = {t: await state(service, namespace, t) for t in tasks}
    (failed,) = [s for s in after.values() if s["status"] == "failed"]  # max_attempts 1: out of the queue
    assert (failed["attempts"], failed["error"]) == (1, "StoreUnavailableError: Neo4j not reachable (a blip of "
                                                        "this test)")
    assert sorted(s["status"] for s in after.values()) == ["done", "failed"]
    assert (worker.stats.failed, worker.stats.reflected) == (1, 1)


async def test_a_claim_whose_commit_the_worker_did_not_see_is_given_back(
        service: MemoryService, namespace: str, monkeypatch: pytest.MonkeyPatch) -> None:
    task_id = await ended_task(service, namespace, "claimed unseen")
    worker = ReflectionWorker(ReflectionService(service, scripted_llm(service.settings, Script([]))),
                              namespaces=[namespace])

    async def claim_then_drop(*args: Any, **kw: Any) -> list[dict[str, Any]]:
        await claim_tasks(*args, **kw)
        raise StoreUnavailableError("connection dropped before the commit was acknowledged")

    monkeypatch.setattr(reflection_worker, "claim_tasks", claim_then_drop)
    with pytest.raises(StoreUnavailableError):
        await worker.run_once(force=True)
    assert (await state(service, namespace, task_id))["status"] == "running"
    monkeypatch.undo()
    await worker.stop()  # its last act: what it holds goes back to the queue
    assert (await state(service, namespace, task_id))["status"] == "pending"
