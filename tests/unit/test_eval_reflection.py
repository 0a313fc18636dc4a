"""The turns+reflection corpus without the LLM: the corpus choice and its namespace, the refusal without an LLM,
and the once-per-session reflection loop (skip what is reflected, record failures, go on) with a fake reflector
at the I/O edge."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli import main
from graphmem.config import Settings
from graphmem.errors import ConfigError, LLMOutputError, ValidationError
from graphmem.eval.corpus import CORPORA, check_corpus, corpus_namespace, corpus_plan, eval_namespace
from graphmem.eval.locomo import evaluate
from graphmem.eval.reflection import (
    REFLECTION_CORPUS,
    SessionOutcome,
    reflect_tasks,
    reflection_hook,
    reflects,
    require_llm,
    summarise,
)
from graphmem.importers.locomo import LocomoSample, LocomoSession, LocomoTurn
from graphmem.models import MemoryKind, Task, TaskStatus, WriteAction
from graphmem.reflection.service import LLMUsage, ReflectionReport, WrittenEdge, WrittenMemory

NS = "locomo-conv-x-reflection"
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def sample() -> LocomoSample:
    def turns(session: int, n: int) -> tuple[LocomoTurn, ...]:
        return tuple(LocomoTurn(f"D{session}:{i + 1}", session, i, ("Ann", "Bob")[i % 2], f"turn {session}.{i}")
                     for i in range(n))

    sessions = (
        LocomoSession(1, T0, turns(1, 3), ()),
        LocomoSession(2, T0 + timedelta(days=3), turns(2, 2), ()),
    )
    return LocomoSample("conv-x", "Ann", "Bob", sessions, ())


def report(task_id: str, *, facts: int, lessons: int = 0, seconds: float = 90.0, calls: int = 1,
           action: WriteAction = WriteAction.CREATED) -> ReflectionReport:
    return ReflectionReport(
        task_id=task_id, namespace=NS,
        facts=[WrittenMemory(id=f"{task_id}-f{i}", kind=MemoryKind.SEMANTIC, content=f"fact {i}", action=action)
               for i in range(facts)],
        lessons=[WrittenMemory(id=f"{task_id}-l{i}", kind=MemoryKind.LESSON, content=f"lesson {i}",
                               action=WriteAction.CREATED) for i in range(lessons)],
        edges=[WrittenEdge(source_id=f"{task_id}-f0", type="RELATES_TO", target_id="old")] if facts else [],
        superseded=[], llm=LLMUsage(calls=calls, prompt_tokens=1000 * calls, completion_tokens=300 * calls),
        latency_ms=seconds * 1000, turns_shown=3, turns_omitted=0, related_shown=0, dropped_items=1,
    )


class FakeReflector:
    """ReflectionService at the I/O edge: a stored report per task (as ``reflection/mark_done`` keeps it), and a
    scripted answer (a report, or an error raised) for each task it is asked to reflect."""

    def __init__(self, answers: dict[str, ReflectionReport | Exception],
                 stored: dict[str, ReflectionReport] | None = None) -> None:
        self.answers = answers
        self.stored = dict(stored or {})
        self.reflected: list[str] = []

    async def status(self, namespace: str, task_id: str) -> dict[str, Any]:
        assert namespace == NS
        kept = self.stored.get(task_id)
        return {"status": "done" if kept else None, "report": kept.model_dump(mode="json") if kept else None}

    async def reflect(self, namespace: str, task_id: str) -> ReflectionReport:
        assert namespace == NS
        self.reflected.append(task_id)
        answer = self.answers[task_id]
        if isinstance(answer, Exception):
            raise answer
        self.stored[task_id] = answer
        return answer


def tasks(*ids: str) -> list[Task]:
    return [Task(id=i, namespace=NS, agent="locomo", title=f"session {n}", status=TaskStatus.ENDED)
            for n, i in enumerate(ids, start=1)]


def ticking() -> Iterator[float]:
    t = 0.0
    while True:
        yield t
        t += 60.0  # each reflection "takes" a minute


# --- the corpus ------------------------------------------------------------------------------------------


def test_the_reflection_corpus_is_a_choice_with_its_own_namespace() -> None:
    assert REFLECTION_CORPUS in CORPORA
    assert check_corpus("turns+reflection") == "turns+reflection"
    with pytest.raises(ValidationError, match="unknown corpus"):
        check_corpus("turns+reflections")
    base = eval_namespace("conv-26", 6)
    assert base == "locomo-conv-26-first6"
    names = {c: corpus_namespace(base, c) for c in CORPORA}
    assert names["turns+reflection"] == "locomo-conv-26-first6-reflection"
    assert len(set(names.values())) == len(CORPORA)  # no corpus shares another's graph
    assert corpus_namespace(base, "turns+reflection", "no-similar") == "locomo-conv-26-first6-reflection-no-similar"
    assert len(corpus_namespace("n" * 64, "turns+reflection")) == 64


def test_the_reflection_corpus_imports_the_turns_and_sessions_only() -> None:
    plan = corpus_plan(sample(), NS, "turns+reflection")
    assert [m.kind for m in plan.memories] == [MemoryKind.EPISODIC] * 5
    assert [t.title for t in plan.tasks] == ["session 1", "session 2"]  # one task (one reflection) per session
    assert len(plan.turns) == 5
    assert plan.memories == corpus_plan(sample(), NS, "turns").memories


def test_only_the_reflection_corpus_needs_an_llm() -> None:
    assert reflects("turns+reflection")
    assert not reflects("turns")
    assert not reflects("turns+facts")
    with pytest.raises(ConfigError, match="GRAPHMEM_LLM_BASE_URL") as refused:
        require_llm("turns+reflection", configured=False)
    assert refused.value.code == "INVALID_CONFIG"
    require_llm("turns+reflection", configured=True)
    require_llm("turns", configured=False)
    assert reflection_hook("turns", None) is None
    with pytest.raises(ConfigError):
        reflection_hook("turns+reflection", None)


def test_evaluate_refuses_the_reflection_corpus_without_an_llm_before_reading_anything(tmp_path: Path) -> None:
    settings = Settings(llm_base_url=None, signing_disabled=True)
    with pytest.raises(ConfigError, match="turns\\+reflection corpus needs an LLM"):
        asyncio.run(evaluate(settings, tmp_path / "absent.json", corpus="turns+reflection"))


def test_the_cli_refuses_it_in_one_coded_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("GRAPHMEM_LLM_BASE_URL", raising=False)
    data = tmp_path / "locomo.json"
    data.write_text("[]")
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "locomo", "--data", str(data), "--corpus", "turns+reflection", "--out",
              str(tmp_path / "out.json")])
    assert exit_info.value.code != 0
    err = capfd.readouterr().err.strip().splitlines()
    assert err[-1].startswith("graphmem: error [INVALID_CONFIG]: the turns+reflection corpus needs an LLM")
    assert not (tmp_path / "out.json").exists()


# --- once per session ------------------------------------------------------------------------------------


async def test_each_session_is_reflected_once_in_order_and_a_rerun_skips_them() -> None:
    fake = FakeReflector({"t1": report("t1", facts=2), "t2": report("t2", facts=3, lessons=1)})
    notes: list[str] = []
    first = await reflect_tasks(fake, NS, tasks("t1", "t2"), note=notes.append, clock=ticking().__next__)
    assert fake.reflected == ["t1", "t2"]
    assert [o.state for o in first] == ["reflected", "reflected"]
    assert [o.wall_s for o in first] == [60.0, 60.0]
    assert notes[0] == "reflection 1/2 session 1: reflected in 60 s (2 facts, 0 lessons, 1 edges, 1 LLM calls)"

    again = await reflect_tasks(fake, NS, tasks("t1", "t2"), note=notes.append)
    assert fake.reflected == ["t1", "t2"]  # not asked again
    assert [o.state for o in again] == ["skipped", "skipped"]
    assert [o.report for o in again] == [o.report for o in first]  # the stored reports still count
    assert notes[-1].endswith("session 2: already reflected, skipped (3 facts, 1 lessons, 1 edges, 1 LLM calls)")


async def test_a_failed_reflection_is_recorded_the_rest_goes_on_and_the_next_run_retries_it() -> None:
    fake = FakeReflector({"t1": LLMOutputError("no JSON after the repair retry"), "t2": report("t2", facts=1)},
                         stored={"t0": report("t0", facts=4)})
    out = await reflect_tasks(fake, NS, tasks("t0", "t1", "t2"), clock=ticking().__next__)
    assert [o.state for o in out] == ["skipped", "failed", "reflected"]
    assert out[1].error == "LLM_BAD_OUTPUT: no JSON after the repair retry"
    assert fake.reflected == ["t1", "t2"]

    fake.answers["t1"] = report("t1", facts=2)
    retried = await reflect_tasks(fake, NS, tasks("t0", "t1", "t2"))
    assert [o.state for o in retried] == ["skipped", "reflected", "skipped"]
    assert fake.reflected == ["t1", "t2", "t1"]


async def test_a_bug_is_not_counted_as_a_failed_reflection() -> None:
    fake = FakeReflector({"t1": KeyError("bug")})
    with pytest.raises(KeyError):
        await reflect_tasks(fake, NS, tasks("t1"))


def test_the_summary_counts_calls_tokens_writes_drops_and_seconds() -> None:
    outcomes = [
        SessionOutcome("t0", "session 1", "skipped", report("t0", facts=2, seconds=120.0, calls=2)),
        SessionOutcome("t1", "session 2", "reflected", report("t1", facts=1, lessons=2, seconds=60.0,
                                                              action=WriteAction.STRENGTHENED), wall_s=61.0),
        SessionOutcome("t2", "session 3", "failed", wall_s=300.0, error="LLM_ERROR: timed out"),
    ]
    s = summarise(NS, outcomes)
    assert (s["sessions"], s["reflected_now"], s["skipped_already_reflected"], s["failed"]) == (3, 1, 1, 1)
    assert s["llm"] == {"calls": 3, "prompt_tokens": 3000, "completion_tokens": 900}
    assert s["facts"] == {"total": 3, "by_action": {"created": 2, "strengthened": 1}}
    assert (s["lessons"], s["edges"], s["dropped"]["items"]) == (2, 2, 2)
    assert s["seconds_per_session"] == {"mean": 90.0, "median": 90.0, "min": 60.0, "max": 120.0}
    assert s["wall_s_this_run"] == 361.0
    assert [r["state"] for r in s["per_session"]] == ["skipped", "reflected", "failed"]
    assert s["per_session"][2] == {"task": "t2", "title": "session 3", "state": "failed", "wall_s": 300.0,
                                   "error": "LLM_ERROR: timed out"}
    assert summarise(NS, [])["seconds_per_session"]["mean"] is None
