"""Task summaries (pure): the draft and its id, the extractive summary, the write plan of a summary, the context
stage's summary term, the ranking that hides summaries, the fit ranking as the service does, and the descent's
candidates."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from graphmem.eval.corpus import CORPORA, corpus_namespace, has_summaries
from graphmem.eval.fit import PoolItem, PoolQuestion, ranked
from graphmem.models import MemoryDraft, MemoryKind, Role, Task, Turn, WriteAction
from graphmem.reflection.output import ReflectionOutput, constrained_schema
from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.context import context_bonus
from graphmem.retrieval.descend import descended
from graphmem.retrieval.formula import FormulaWeights, length_prior
from graphmem.retrieval.ranking import QueryContext, rank
from graphmem.retrieval.types import SearchOptions, SummaryMode
from graphmem.service.planning import plan_batch
from graphmem.service.write_tx import link_rows
from graphmem.summary import extractive_summary, summary_draft, summary_id
from graphmem.summary.draft import MAX_SUMMARY_CHARS

NOW = datetime(2026, 1, 1, tzinfo=UTC)
TASK = Task(id="t1", namespace="ns", title="Refund for order 42", started_at=datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
            outcome="Refund issued")


def turn(seq: int, text: str, role: Role = Role.USER) -> Turn:
    return Turn(id=f"u{seq}", task_id="t1", seq=seq, role=role, content=text)


def test_summary_id_is_stable_in_task_and_text() -> None:
    assert summary_id("t1", "Bob  asked for a refund.") == summary_id("t1", "bob asked for a REFUND.")
    assert summary_id("t1", "Bob asked for a refund.") != summary_id("t2", "Bob asked for a refund.")
    assert summary_id("t1", "Bob asked for a refund.") != summary_id("t1", "Bob asked for an exchange.")


def test_summary_draft() -> None:
    draft = summary_draft(TASK, "  Bob asked\nfor a refund. ", turn_ids=["u0", "u1", "u0"], how="reflection")
    assert draft is not None
    assert (draft.kind, draft.summary_of, draft.task_id) == (MemoryKind.EPISODIC, "t1", None)
    assert draft.content == "Bob asked for a refund."
    assert draft.id == summary_id("t1", draft.content)
    assert draft.derived_from == ("u0", "u1")
    assert draft.created_at == TASK.started_at
    assert draft.source == "summary:reflection"
    assert draft.tags == ("summary",)
    assert summary_draft(TASK, "  \n", turn_ids=[], how="x") is None
    long = summary_draft(TASK, "word " * 1000, turn_ids=[], how="x")
    assert long is not None
    assert len(long.content) == MAX_SUMMARY_CHARS
    assert long.content.endswith("\u2026")


def test_a_summary_is_episodic_and_from_its_own_task() -> None:
    with pytest.raises(ValueError, match="episodic"):
        MemoryDraft(namespace="ns", kind=MemoryKind.SEMANTIC, content="x", summary_of="t1")
    with pytest.raises(ValueError, match="task_id = summary_of"):
        MemoryDraft(namespace="ns", kind=MemoryKind.EPISODIC, content="x", summary_of="t1", task_id="t2")
    MemoryDraft(namespace="ns", kind=MemoryKind.EPISODIC, content="x", summary_of="t1", task_id="t1")


def test_extractive_summary_quotes_the_central_turns() -> None:
    turns = [turn(0, "hi"), turn(1, "My order 42 arrived broken, I want a refund for order 42."),
             turn(2, "Sorry to hear that. I can refund order 42 today.", Role.ASSISTANT),
             turn(3, "The weather is lovely here."), turn(4, "Refund for order 42 is issued.", Role.ASSISTANT),
             turn(5, "thanks")]
    text = extractive_summary(TASK, turns)
    assert text is not None
    assert text.startswith("On 8 May 2023, user, assistant: Refund for order 42.")
    assert "weather" not in text
    assert "I want a refund" in text
    assert text.endswith("Outcome: Refund issued")
    assert text.index("user: My order") < text.index("assistant: Sorry")  # in the task's order
    assert extractive_summary(Task(namespace="ns"), [turn(0, "hi")]) is None


def test_a_summary_is_never_merged_and_is_attached_to_its_task() -> None:
    summary = summary_draft(TASK, "Bob asked for a refund.", turn_ids=["u0"], how="x")
    fact = MemoryDraft(namespace="ns", kind=MemoryKind.EPISODIC, content="Bob asked for a refund.", task_id="t1")
    assert summary is not None
    v = list(np.ones(4) / 2.0)
    plan = plan_batch([summary, fact], [v, v], existing_ids=set(), hash_hits={0: "old", 1: "old"}, vector_hits={},
                      threshold=0.9, dedupe=True, alpha=0.2, now=NOW)
    assert [r.action for r in plan.results] == [WriteAction.CREATED, WriteAction.STRENGTHENED]
    assert plan.summary_ids == {summary.id}
    assert plan.summary_rows == [{"memory_id": summary.id, "namespace": "ns", "task_id": "t1", "at": NOW}]
    assert [r["memory_id"] for r in plan.task_rows] == ["old"]  # the summary's FROM_TASK is summary/attach's
    steps = dict(link_rows(plan, {}))
    assert steps["summary/attach"] == plan.summary_rows
    assert [name for name, _ in link_rows(plan, {})].index("summary/attach") < [
        name for name, _ in link_rows(plan, {})].index("graph/link_follows")  # labelled before the time order


def test_context_summary_term() -> None:
    base = {"s": 1.0, "a": 0.5, "b": 0.4, "c": 0.3}
    task = {"s": "t", "a": "t", "b": "t", "c": "other"}
    bonus = context_bonus(base, {}, {}, 0.0, 0.0, task, 0.1, {"s"}, 0.2)
    assert bonus["a"] == pytest.approx(0.1 * 0.4 + 0.2 * 1.0)  # the summary is no "other" of the task term
    assert bonus["b"] == pytest.approx(0.1 * 0.5 + 0.2 * 1.0)
    assert bonus["s"] == pytest.approx(0.1 * 0.5)  # a summary gains nothing from itself
    assert bonus["c"] == 0.0


def candidates() -> dict[str, Candidate]:
    old = "2023-05-01T00:00:00+00:00"

    def c(mid: str, cos: float, fused: float, *, summary: bool = False, descended: bool = False) -> Candidate:
        return Candidate(data={"id": mid, "namespace": "ns", "kind": "episodic", "content": mid, "created_at": old},
                         cosine=cos, fused=fused, task="t" if mid != "x" else "u", summary=summary,
                         descended=descended)

    return {"s": c("s", 0.8, 1.0, summary=True), "a": c("a", 0.4, 0.0, descended=True), "x": c("x", 0.5, 0.6)}


@pytest.mark.parametrize("mode", list(SummaryMode))
def test_rank_hides_summaries_unless_asked(mode: SummaryMode) -> None:
    w = FormulaWeights(fused=0.1, summary=0.3, recency=0.0, frequency=0.0, confidence=0.0)
    options = SearchOptions(namespaces=("ns",), summaries=mode)
    order = [r.memory.id for r in rank(candidates(), {}, options, w, lambda c: c.cosine, NOW, QueryContext(), 10)]
    assert order == (["s", "a", "x"] if mode is SummaryMode.RETURN else ["a", "x"])  # a: its summary matched
    pool = tuple(PoolItem(i, c.cosine, c.fused, 0.0, False, c.fused > 0, task=c.task, summary=c.summary,
                          descended=c.descended, length=length_prior(c.data["content"], w.length_cap))
                 for i, c in candidates().items())
    if mode is SummaryMode.LEAD:  # the fit ranks as the service does (descended memories always weighed)
        assert ranked(PoolQuestion("c", 1, frozenset(), pool), w, 0) == order


def test_descended_rows_become_candidates_with_their_path() -> None:
    known = candidates()
    rows: list[dict[str, Any]] = [
        {"memory": {"id": mid, "namespace": "ns", "kind": "episodic", "content": mid, "tags": None},
         "score": score, "via": "s", "task": "t", "turns": ["u9"], "before": None, "after": None,
         "entity_hits": 1, "summary": False} for mid, score in (("n1", 0.9), ("a", 0.8))]
    found = descended(rows, known)
    assert list(found) == ["n1"]  # a is a candidate already
    n1 = found["n1"]
    assert n1.descended
    assert n1.seed_id == "s"
    assert n1.seed_cosine == 0.8
    assert n1.cosine == pytest.approx(0.8)
    assert [(p.source_id, p.type, p.target_id) for p in n1.path] == [("s", "FROM_TASK", "t"), ("n1", "FROM_TASK", "t")]
    assert n1.turns == ("u9",)
    assert n1.entity_hits == 1
    assert "tags" not in n1.data
    two_tasks = [{**rows[0], "memory": {**rows[0]["memory"], "id": "n2"}, "task": "t5", "via_task": "t"}]
    n2 = descended(two_tasks, known)["n2"]  # a memory of two tasks: the path names the one the summary led through
    assert [(p.source_id, p.target_id) for p in n2.path] == [("s", "t"), ("n2", "t")]
    assert n2.task == "t5"  # the context stage still reads its own first task


def test_reflection_output_asks_for_the_summary_last() -> None:
    schema = constrained_schema(memory_aliases=["M1"], turn_numbers=[1])
    assert schema["required"][-1] == "summary"
    assert list(schema["properties"])[-1] == "summary"
    assert ReflectionOutput.model_validate({"facts": []}).summary == ""  # an old answer still parses
    assert "maxLength" not in schema["properties"]["summary"]  # a long bound broke llama.cpp's grammar parser


def test_summary_corpora() -> None:
    from graphmem.cli.evaluation import CORPUS_CHOICES

    assert tuple(CORPUS_CHOICES) == CORPORA
    assert [c for c in CORPORA if has_summaries(c)] == ["turns+facts+summaries", "turns+summaries"]
    names = {corpus_namespace("locomo-conv-26", c) for c in CORPORA}
    assert len(names) == len(CORPORA)


def test_a_time_read_back_from_neo4j_is_written_in_plain_utc() -> None:
    from zoneinfo import ZoneInfo

    read_back = datetime(2023, 5, 8, 13, 56, tzinfo=ZoneInfo("UTC"))  # a named zone, as a time read from Neo4j
    draft = summary_draft(TASK.model_copy(update={"started_at": read_back}), "Bob asked.", turn_ids=[], how="x")
    assert draft is not None
    plan = plan_batch([draft], [[1.0, 0.0]], existing_ids=set(), hash_hits={}, vector_hits={}, threshold=0.9,
                      dedupe=True, alpha=0.2, now=NOW)
    created = plan.creates[0].created_at
    assert created.tzinfo is UTC
    assert created == TASK.started_at


def test_a_time_utc_cannot_hold_is_invalid_input() -> None:
    from datetime import timedelta, timezone

    east = timezone(timedelta(hours=5))
    with pytest.raises(ValueError, match="out of range"):
        MemoryDraft(namespace="ns", kind=MemoryKind.SEMANTIC, content="x", created_at=datetime(1, 1, 1, tzinfo=east))
    draft = MemoryDraft(namespace="ns", kind=MemoryKind.SEMANTIC, content="x",
                        valid_from=datetime(2020, 1, 1, 5, tzinfo=east))
    assert draft.valid_from == datetime(2020, 1, 1, tzinfo=UTC)
    assert draft.valid_from is not None
    assert draft.valid_from.tzinfo is UTC
