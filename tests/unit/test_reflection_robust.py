"""Reflection survives a bad model answer item by item (pure planning), and its per-task locks do not pile up."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from graphmem.errors import LLMOutputError
from graphmem.models import MAX_CONTENT_CHARS, MemoryKind, Role, Turn
from graphmem.reflection.locks import KeyedLocks
from graphmem.reflection.output import ReflectionOutput, check_references
from graphmem.reflection.plan import MAX_ENTITY_CHARS, clean_entities, plan_reflection

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TURNS = [Turn(task_id="task-1", seq=0, role=Role.USER, content="I moved to Berlin, my sister Ana too.", at=NOW),
         Turn(task_id="task-1", seq=1, role=Role.ASSISTANT, content="Noted: Berlin.", at=NOW)]


def output(**kw: object) -> ReflectionOutput:
    base: dict[str, object] = {"facts": [], "relations": [], "errors": [], "improvements": []}
    return ReflectionOutput.model_validate({**base, **kw})


def fact(content: str, **kw: object) -> dict[str, object]:
    return {"content": content, "kind": "semantic", "turns": [0], "confidence": 0.9, **kw}


def test_a_blank_fact_is_dropped_with_the_edges_that_name_it() -> None:
    out = output(facts=[fact("The user lives in Berlin."), fact("    "), fact("Ana lives in Berlin.")],
                 relations=[{"source": "F2", "type": "CAUSES", "target": "F1"},
                            {"source": "F3", "type": "RELATES_TO", "target": "F1"}])
    p = plan_reflection(out, namespace="ns", task_id="task-1", turns=TURNS, aliases={}, now=NOW)
    assert [d.content for d in p.drafts] == ["The user lives in Berlin.", "Ana lives in Berlin."]
    assert p.dropped == 1
    assert [(e.source, e.target) for e in p.edges] == [(1, 0)]  # F3 -> F1 kept, F2 -> F1 gone


def test_over_long_and_blank_entities_are_dropped_not_the_fact() -> None:
    names = ["Berlin", "x" * (MAX_ENTITY_CHARS + 1), "  ", "Ana", "Berlin"]
    out = output(facts=[fact("Ana lives in Berlin.", entities=names)])
    p = plan_reflection(out, namespace="ns", task_id="task-1", turns=TURNS, aliases={}, now=NOW)
    assert p.drafts[0].entities == ("Berlin", "Ana")
    assert p.dropped == 0
    assert clean_entities([f"e{i}" for i in range(100)]) == tuple(f"e{i}" for i in range(32))


def test_an_over_long_lesson_is_dropped_the_rest_is_kept() -> None:
    out = output(facts=[fact("The user lives in Berlin.")], errors=["y" * (MAX_CONTENT_CHARS + 1)],
                 improvements=["Confirm a changed address."])
    p = plan_reflection(out, namespace="ns", task_id="task-1", turns=TURNS, aliases={}, now=NOW)
    assert [(d.kind, d.content) for d in p.drafts] == [
        (MemoryKind.SEMANTIC, "The user lives in Berlin."), (MemoryKind.LESSON, "Confirm a changed address.")]
    assert p.dropped == 1


def test_the_repair_message_copied_back_never_becomes_a_memory() -> None:
    with pytest.raises(LLMOutputError) as caught:  # the feedback a repair retry shows the model
        check_references(output(facts=[fact("The user lives in Berlin.")],
                                relations=[{"source": "F1", "type": "CAUSES", "target": "F7"}]),
                         memory_aliases=set(), turn_numbers={0, 1})
    feedback = str(caught.value).split(": ", 1)[1]  # "relations[0]: unknown id 'F7' (use F1..F1 or the M ids shown)"
    echoed = feedback.split(": ", 1)[1]
    out = output(facts=[fact("The user lives in Berlin."), fact(f"Note: {echoed}")],
                 relations=[{"source": "F2", "type": "CAUSES", "target": "F1"}],
                 errors=[echoed, "unknown id 'F8' (use F1..F6 or the M ids shown)"],
                 improvements=["Confirm a changed address.", "That answer was not valid: facts[F1].turns: no turn 9"])
    p = plan_reflection(out, namespace="ns", task_id="task-1", turns=TURNS, aliases={}, now=NOW)
    assert [(d.kind, d.content) for d in p.drafts] == [
        (MemoryKind.SEMANTIC, "The user lives in Berlin."), (MemoryKind.LESSON, "Confirm a changed address.")]
    assert p.dropped == 4
    assert p.edges == []  # the echoed fact's edge goes with it


def test_a_blank_lesson_is_repaired_first_then_dropped_on_the_last_try() -> None:
    out = output(facts=[fact("The user lives in Berlin.")], errors=["   "], improvements=["Ask twice."])
    with pytest.raises(LLMOutputError, match="empty text"):
        check_references(out, memory_aliases=set(), turn_numbers={0, 1})
    cleaned = check_references(out, memory_aliases=set(), turn_numbers={0, 1}, last_try=True)
    assert (cleaned.errors, cleaned.improvements) == ([], ["Ask twice."])


async def test_keyed_locks_serialise_one_key_and_forget_free_keys() -> None:
    locks = KeyedLocks()
    order: list[str] = []

    async def hold(key: str, name: str) -> None:
        async with locks.hold(key):
            order.append(f"{name}+")
            await asyncio.sleep(0.01)
            order.append(f"{name}-")

    await asyncio.gather(hold("a", "1"), hold("a", "2"), hold("b", "3"))
    assert order.index("1-") < order.index("2+")  # the same key: one after the other
    assert len(locks) == 0
    for i in range(1000):
        async with locks.hold(("ns", f"task-{i}")):
            assert len(locks) == 1
    assert len(locks) == 0


async def test_keyed_locks_forget_a_key_after_an_error_or_a_cancelled_waiter() -> None:
    locks = KeyedLocks()
    with pytest.raises(RuntimeError):
        async with locks.hold("k"):
            raise RuntimeError("boom")
    assert len(locks) == 0
    entered = asyncio.Event()

    async def holder() -> None:
        async with locks.hold("k"):
            entered.set()
            await asyncio.sleep(0.05)

    async def waiter() -> None:
        async with locks.hold("k"):
            pass

    first = asyncio.create_task(holder())
    await entered.wait()
    second = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    second.cancel()
    await asyncio.gather(first, second, return_exceptions=True)
    assert len(locks) == 0
