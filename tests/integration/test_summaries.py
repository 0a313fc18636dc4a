"""Task summaries on the real Neo4j with the real embedder (the model's answers scripted): reflection writes one
summary in its transaction, re-reflection replaces it, the extractive summary at a task's end, the import of
LoCoMo's, and a search that climbs down from a summary to a turn that no seed reached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Role, Task, WriteAction
from graphmem.reflection import ReflectionService
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.types import SummaryMode
from graphmem.service import MemoryService
from graphmem.store import Store
from graphmem.summary.service import task_summary, write_extractive
from tests.integration.reflection_support import Script, scripted_llm

CYPHER = Path(__file__).parent / "cypher"
FACTS = {"facts": [{"content": "Order 42 was refunded.", "kind": "episodic", "entities": ["order 42"], "turns": [0],
                    "replaces": "none", "confidence": 0.9}],
         "relations": [], "errors": [], "improvements": []}


def answer(summary: str) -> dict[str, Any]:
    return {"summary": summary, **FACTS}


async def summaries(store: Store, namespace: str) -> list[dict[str, Any]]:
    async with store.driver.session(database=store.database) as session:
        result = await session.run((CYPHER / "summary_view.cypher").read_text(), {"namespace": namespace})
        return await result.data()


async def refund_task(service: MemoryService, namespace: str) -> str:
    task = await service.tasks.start(Task(namespace=namespace, title="Refund for a broken kettle"))
    await service.tasks.log_turns(namespace, task.id, [
        (Role.USER, "My kettle from order 42 arrived broken, I want my money back."),
        (Role.ASSISTANT, "Sorry about that. I have refunded order 42 to your card."),
        (Role.USER, "Great, thanks."),
    ])
    for content in ("user: My kettle from order 42 arrived broken.", "assistant: I refunded order 42 to your card."):
        await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=content,
                                                  task_id=task.id)])
    await service.tasks.end(namespace, task.id, outcome="refunded")
    return task.id


async def test_reflection_writes_one_summary_and_re_reflection_replaces_it(
        service: MemoryService, store: Store, namespace: str) -> None:
    task_id = await refund_task(service, namespace)
    script = Script([answer("The user's kettle arrived broken; order 42 was refunded to their card."),
                     answer("A broken kettle from order 42: the agent refunded it the same day."),
                     answer("A broken kettle from order 42: the agent refunded it the same day.")])
    reflector = ReflectionService(service, scripted_llm(service.settings, script))
    first = await reflector.reflect(namespace, task_id)
    assert first.llm.calls == 1  # the summary came with the facts, in the one call
    assert first.summary is not None
    assert first.summary.action is WriteAction.CREATED
    (row,) = await summaries(store, namespace)
    turns = await service.tasks.turns(namespace, task_id)
    assert row["id"] == first.summary.id
    assert row["task"] == [task_id]
    assert set(row["derived"]) == {t.id for t in turns}
    assert row["follows"] == 0  # no part of the task's time order
    stored = await task_summary(service, namespace, task_id)
    assert stored is not None
    assert stored.content == first.summary.content
    assert stored.kind is MemoryKind.EPISODIC

    second = await reflector.reflect(namespace, task_id, force=True)
    assert second.summary is not None
    assert second.summary.id != first.summary.id
    rows = {r["id"]: r for r in await summaries(store, namespace)}
    assert [r["status"] for r in rows.values()].count("active") == 1  # replaced, never duplicated
    assert rows[first.summary.id]["status"] == MemoryStatus.SUPERSEDED.value
    assert rows[second.summary.id]["supersedes"] == [first.summary.id]
    assert (await service.get_memory(namespace, first.summary.id)).valid_until is not None

    third = await reflector.reflect(namespace, task_id, force=True)  # the same summary again: nothing new
    assert third.summary is not None
    assert third.summary.id == second.summary.id
    assert third.summary.action is WriteAction.EXISTS
    assert len(await summaries(store, namespace)) == 2


async def test_the_extractive_summary_without_an_llm(service: MemoryService, store: Store, namespace: str) -> None:
    task_id = await refund_task(service, namespace)
    result = await write_extractive(service, namespace, task_id)
    assert result is not None
    assert result.action is WriteAction.CREATED
    again = await write_extractive(service, namespace, task_id)
    assert again is not None
    assert again.id == result.id  # the same text: the same memory
    assert again.action is WriteAction.EXISTS
    summary = await task_summary(service, namespace, task_id)
    assert summary is not None
    assert "order 42" in summary.content
    assert summary.source == "summary:extractive"
    assert len(await summaries(store, namespace)) == 1


async def test_the_summary_leads_search_to_a_turn_no_seed_reached(
        service: MemoryService, store: Store, namespace: str) -> None:
    trip = await service.tasks.start(Task(namespace=namespace, title="session 1"))
    chat = ["Melanie: We finally booked the flights!", "Caroline: Which airline did you pick?",
            "Caroline: So the cheap airline, with a stopover.", "Caroline: Pack light then."]
    for content in chat:
        await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=content,
                                                  task_id=trip.id)])
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, summary_of=trip.id,
                                              content="Melanie and Caroline talked about Melanie's holiday trip to "
                                                      "Portugal and the flights she booked for it.")])
    for i in range(6):  # other sessions that match the question's words better than the turn does
        other = await service.tasks.start(Task(namespace=namespace, title=f"other {i}"))
        await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, task_id=other.id,
                                                  content=f"Melanie: my holiday trip plans for week {i} are open.")])
    retrieval = RetrievalService(store, service.embedder, service.settings)
    query = "What did Melanie say about the holiday trip to Portugal?"
    options = SearchOptions(namespaces=(namespace,), k=10, seed_k=3, hops=0)  # seeds only, then the descent
    seeded = await retrieval.candidate_pool(query, options.model_copy(update={"summaries": SummaryMode.HIDE}))
    seeds = {i for i, c in seeded[0].items() if c.fused > 0}
    found = await retrieval.search(query, options)
    by_content = {r.memory.content: r for r in found.results}
    hit = by_content.get("Caroline: So the cheap airline, with a stopover.")
    assert hit is not None, list(by_content)
    assert hit.memory.id not in seeds  # no seed reached it
    summary = await task_summary(service, namespace, trip.id)
    assert summary is not None
    assert hit.seed_id == summary.id
    assert [s.type for s in hit.path] == ["FROM_TASK", "FROM_TASK"]
    assert summary.id not in {r.memory.id for r in found.results}  # it led, it is not returned (the default)
    returned = await retrieval.search(query, options.model_copy(update={"summaries": SummaryMode.RETURN}))
    assert summary.id in {r.memory.id for r in returned.results}
    ignored = await retrieval.search(query, options.model_copy(update={"summaries": SummaryMode.HIDE}))
    assert all(r.path[:1] == () or r.path[0].type != "FROM_TASK" for r in ignored.results)
