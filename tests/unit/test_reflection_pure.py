"""Reflection's pure parts: parsing recorded model answers, references, compression, planning, prompt sizing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.errors import ConfigError, LLMOutputError
from graphmem.llm.parse import parse_output
from graphmem.llm.prompt import CUT_MARK, estimate_tokens, fit_to_context
from graphmem.models import Memory, MemoryKind, RelationType, Role, Task, Turn, provenance
from graphmem.reflection.output import ReflectionOutput, check_references, constrained_schema
from graphmem.reflection.plan import plan_reflection, resolve_rows, stable_id
from graphmem.reflection.prepare import compress_turns, is_small_talk, memory_aliases, render_prompt
from graphmem.summary import summary_draft

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GOOD: dict[str, Any] = {  # a model's answer: JSON
    "facts": [
        {"content": "The user moved from Paris to Berlin.", "kind": "semantic", "entities": ["Berlin"],
         "turns": [0], "replaces": "M1", "confidence": 0.9},
        {"content": "The user asked to update the delivery address.", "kind": "episodic", "entities": [],
         "turns": [0, 1], "replaces": "none", "confidence": 1.0},
    ],
    "relations": [{"source": "F2", "type": "CAUSES", "target": "F1"},
                  {"source": "F1", "type": "RELATES_TO", "target": "M2"}],
    "errors": [], "improvements": ["Confirm the new address back to the user."],
}


def turns_of(*contents: str, task_id: str = "task-1") -> list[Turn]:
    roles = [Role.USER, Role.ASSISTANT]
    return [Turn(task_id=task_id, seq=i, role=roles[i % 2], content=c, at=NOW) for i, c in enumerate(contents)]


# --- recorded bad answers ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ('{"facts": [{"content": "The user lives in Ber', "no JSON"),  # truncated at max_tokens
    ("I have reflected on the task and the user seems happy.", "no JSON"),
    ('{"facts": "the user moved", "relations": []}', "facts: Input should be a valid list"),
    ('{"facts": [{"content": "x is y", "kind": "semantic", "confidence": "very"}]}', "confidence"),
    ('{"facts": [{"content": "x is y", "kind": "opinion", "confidence": 0.5}]}', "kind"),
    ('{"facts": [], "relations": [{"source": "F1", "type": "LIKES", "target": "M1"}]}', "type"),
    ('{"relations": []}', "facts: Field required"),
])
def test_bad_answers_are_typed_errors(text: str, message: str) -> None:
    with pytest.raises(LLMOutputError, match=message):
        parse_output(text, ReflectionOutput)


def test_prose_fences_and_trailing_commas_are_tolerated() -> None:
    text = "Here is my reflection:\n```json\n" + json.dumps(GOOD)[:-1] + ",}\n```\nDone."
    out = parse_output(text, ReflectionOutput)
    assert [f.content for f in out.facts] == [f["content"] for f in GOOD["facts"]]


@pytest.mark.parametrize(("change", "message"), [
    ({"relations": [{"source": "F1", "type": "RELATES_TO", "target": "M9"}]}, "unknown id 'M9'"),
    ({"relations": [{"source": "F3", "type": "RELATES_TO", "target": "M1"}]}, "unknown id 'F3'"),
    ({"relations": [{"source": "return policy", "type": "RELATES_TO", "target": "F1"}]}, "unknown id"),
    ({"relations": [{"source": "F1", "type": "RELATES_TO", "target": "F1"}]}, "to itself"),
    ({"facts": [{**GOOD["facts"][0], "replaces": "M7"}]}, "unknown memory id 'M7'"),
    ({"facts": [{**GOOD["facts"][0], "turns": [42]}]}, "no turn 42"),
])
def test_unknown_references_are_refused(change: dict[str, object], message: str) -> None:
    out = ReflectionOutput.model_validate({**GOOD, **change})
    with pytest.raises(LLMOutputError, match=message):
        check_references(out, memory_aliases={"M1", "M2"}, turn_numbers={0, 1})


def test_good_answer_passes_the_reference_check() -> None:
    check_references(ReflectionOutput.model_validate(GOOD), memory_aliases={"M1", "M2"}, turn_numbers={0, 1})


def test_constrained_schema_narrows_ids_to_those_shown() -> None:
    schema = constrained_schema(memory_aliases=["M1", "M2"], turn_numbers=[0, 3])
    rel = schema["$defs"]["RelationOut"]["properties"]
    assert "M2" in rel["source"]["enum"]
    assert "F1" in rel["target"]["enum"]
    assert "M3" not in rel["target"]["enum"]
    fact = schema["$defs"]["FactOut"]["properties"]
    assert fact["replaces"]["enum"] == ["none", "M1", "M2"]
    assert fact["turns"]["items"]["enum"] == [0, 3]
    assert "minItems" not in schema["properties"]["relations"]
    assert constrained_schema(memory_aliases=[], turn_numbers=[0], min_relations=1)["properties"]["relations"][
        "minItems"] == 1
    assert constrained_schema(memory_aliases=[], turn_numbers=[0])["$defs"]["FactOut"]["properties"][
        "replaces"]["enum"] == ["none"]


# --- compression ---------------------------------------------------------------------------------------
def test_small_talk_is_dropped_and_order_kept() -> None:
    turns = turns_of("Hi", "Hello! How can I help?", "I moved to Berlin, please update my address.", "Done.",
                     "Thanks!")
    out = compress_turns(turns, 1000)
    assert is_small_talk("thank you so much!")
    assert not is_small_talk("thanks, and my order 42?")
    assert [line.seq for line in out.lines] == [1, 2, 3]
    assert out.dropped_small_talk == 2
    assert out.omitted == 0


def test_budget_keeps_first_last_and_salient_turns() -> None:
    filler = "we talked about the weather and other things for a while " * 4
    contents = ["I want a refund for order 7."] + [filler] * 30 + ["I prefer the refund to my card.", "Done."]
    turns = turns_of(*contents)
    out = compress_turns(turns, 200)
    seqs = [line.seq for line in out.lines]
    assert seqs[0] == 0
    assert seqs[-1] == len(turns) - 1
    assert len(turns) - 2 in seqs
    assert out.omitted > 0
    assert sum(estimate_tokens(f"T{x.seq} [{x.role}]: {x.text}") for x in out.lines) <= 200


def test_prompt_shows_aliases_not_ids() -> None:
    memory = Memory(namespace="ns", kind=MemoryKind.SEMANTIC, content="The user lives in Paris.")
    aliases = memory_aliases([memory])
    system, user = render_prompt(Task(namespace="ns", title="Address"), compress_turns(turns_of("I moved."), 500),
                                 aliases)
    assert "M1 (semantic): The user lives in Paris." in user
    assert memory.id not in user
    assert "replaces" in system
    assert "T0 [user]: I moved." in user


# --- planning ------------------------------------------------------------------------------------------
def test_plan_maps_aliases_turns_and_supersedes() -> None:
    turns = turns_of("I moved from Paris to Berlin.", "Updated.")
    out = ReflectionOutput.model_validate(GOOD)
    plan = plan_reflection(out, namespace="ns", task_id="task-1", turns=turns,
                           aliases={"M1": "old-paris", "M2": "mem-2"}, now=NOW)
    assert plan.fact_count == 2
    assert len(plan.drafts) == 3
    assert plan.drafts[2].kind is MemoryKind.LESSON
    assert plan.drafts[0].derived_from == (turns[0].id,)
    assert plan.drafts[0].task_id == "task-1"
    assert plan.drafts[0].valid_from == NOW
    assert plan.drafts[1].valid_from is None
    assert plan.supersedes == [(0, "old-paris")]
    assert {(e.source, e.type, e.target) for e in plan.edges} == {
        (1, RelationType.CAUSES, 0), (0, RelationType.RELATES_TO, "mem-2")}
    again = plan_reflection(out, namespace="ns", task_id="task-1", turns=turns,
                            aliases={"M1": "old-paris", "M2": "mem-2"}, now=NOW)
    assert [d.id for d in again.drafts] == [d.id for d in plan.drafts]  # stable ids: re-reflection is a no-op
    assert stable_id("task-2", "semantic", "x") != stable_id("task-1", "semantic", "x")


def test_only_replaces_supersedes_and_edge_types_are_narrowed() -> None:
    out = ReflectionOutput.model_validate({**GOOD, "facts": [{**GOOD["facts"][0], "replaces": "none"}],
                                           "relations": [{"source": "F1", "type": "SUPERSEDES", "target": "M1"},
                                                         {"source": "F1", "type": "DERIVED_FROM", "target": "M2"}]})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("x"),
                           aliases={"M1": "old", "M2": "other"}, now=NOW)
    assert plan.supersedes == []  # a stray SUPERSEDES edge retires nothing
    assert [(e.type, e.target) for e in plan.edges] == [(RelationType.CONTRADICTS, "old"),
                                                         (RelationType.RELATES_TO, "other")]
    offered = constrained_schema(memory_aliases=["M1"], turn_numbers=[0])["$defs"]["RelationOut"]["properties"]
    assert "SUPERSEDES" not in offered["type"]["enum"]
    assert "CAUSES" in offered["type"]["enum"]


def test_resolved_rows_drop_self_edges_after_dedupe() -> None:
    out = ReflectionOutput.model_validate(GOOD)
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("a", "b"),
                           aliases={"M1": "old-paris", "M2": "mem-2"}, now=NOW)
    # the first fact strengthened mem-2 (a near duplicate): its edge to mem-2 would be a self edge
    edges, supersede, refused = resolve_rows(plan, ["mem-2", "new-2", "lesson"], now=NOW)
    assert [(e["source_id"], e["type"], e["target_id"]) for e in edges] == [("new-2", "CAUSES", "mem-2")]
    assert supersede == [{"new": "mem-2", "old": "old-paris", "at": NOW}]
    assert refused == 0


def test_only_new_information_supersedes_and_only_once() -> None:
    facts = [{**GOOD["facts"][0], "content": f"fact {i}", "replaces": alias}
             for i, alias in enumerate(["M1", "M1", "M2", "M3"])]
    out = ReflectionOutput.model_validate({"facts": facts})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("a"),
                           aliases={"M1": "old-1", "M2": "old-2", "M3": "known"}, now=NOW)
    # fact 0 created (replaces old-1), fact 1 created (old-1 again: refused), fact 2 only strengthened a known
    # memory (refused), fact 3 created but old "known" is the memory fact 2 strengthened (refused)
    _, supersede, refused = resolve_rows(plan, ["n0", "n1", "known", "n3"], now=NOW,
                                         created=[True, True, False, True])
    assert [(r["new"], r["old"]) for r in supersede] == [("n0", "old-1")]
    assert refused == 3



def test_a_memory_trusted_more_than_the_task_is_never_superseded() -> None:
    facts = [{**GOOD["facts"][0], "content": f"fact {i}", "replaces": alias} for i, alias in enumerate(["M1", "M2"])]
    out = ReflectionOutput.model_validate({"facts": facts})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("a"),
                           aliases={"M1": "trusted", "M2": "low"}, now=NOW)
    _, supersede, refused = resolve_rows(plan, ["n0", "n1"], now=NOW, protected=frozenset({"trusted"}))
    assert [(r["new"], r["old"]) for r in supersede] == [("n1", "low")]
    assert refused == 1


def test_what_is_made_from_a_task_carries_its_trust() -> None:
    plain = Task(namespace="ns", title="t")
    low = plain.model_copy(update={"writer": "tok-chat", "trust": 0.3})
    assert provenance(plain) == {}
    assert provenance(low) == {"writer": "tok-chat", "trust": 0.3}
    draft = summary_draft(low, "We planned the trip.", turn_ids=["u1"], how="extractive")
    assert draft is not None
    assert (draft.writer, draft.trust) == ("tok-chat", 0.3)
    trusted = summary_draft(plain, "We planned the trip.", turn_ids=["u1"], how="extractive")
    assert trusted is not None
    assert (trusted.writer, trusted.trust) == (None, None)

def test_repeated_fact_collapses_into_one_draft() -> None:
    fact = GOOD["facts"][1]
    out = ReflectionOutput.model_validate({"facts": [fact, {**fact, "content": fact["content"].upper()}],
                                           "relations": [{"source": "F2", "type": "RELATES_TO", "target": "M1"}]})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("a", "b"), aliases={"M1": "m"}, now=NOW)
    assert len(plan.drafts) == 1
    assert [(e.source, e.target) for e in plan.edges] == [(0, "m")]


# --- prompt sizing -------------------------------------------------------------------------------------
def test_fit_to_context_cuts_the_middle() -> None:
    user = "HEAD " + "x" * 20_000 + " TAIL"
    cut = fit_to_context("system", user, context_tokens=1024, reserve_tokens=256)
    assert cut.startswith("HEAD")
    assert cut.endswith("TAIL")
    assert CUT_MARK in cut
    assert estimate_tokens("system") + estimate_tokens(cut) <= 1024 - 256
    assert fit_to_context("system", "short", context_tokens=1024, reserve_tokens=256) == "short"
    with pytest.raises(ConfigError):
        fit_to_context("s" * 4000, "short", context_tokens=1024, reserve_tokens=256)


def test_last_try_drops_dangling_edges_but_keeps_the_facts() -> None:
    out = ReflectionOutput.model_validate({**GOOD, "relations": [
        {"source": "F1", "type": "RELATES_TO", "target": "F5"}, {"source": "F2", "type": "CAUSES", "target": "F1"}]})
    with pytest.raises(LLMOutputError, match="unknown id 'F5'"):
        check_references(out, memory_aliases={"M1"}, turn_numbers={0, 1})
    cleaned = check_references(out, memory_aliases={"M1"}, turn_numbers={0, 1}, last_try=True)
    assert [(r.source, r.target) for r in cleaned.relations] == [("F2", "F1")]
    assert cleaned.dropped_relations == 1
    bad_fact = ReflectionOutput.model_validate({**GOOD, "facts": [{**GOOD["facts"][0], "replaces": "M9"}],
                                                "relations": []})
    with pytest.raises(LLMOutputError, match="M9"):  # unknown memory ids are never dropped silently
        check_references(bad_fact, memory_aliases={"M1"}, turn_numbers={0, 1}, last_try=True)


def test_a_fact_without_turns_gets_the_turn_it_shares_most_words_with() -> None:
    turns = turns_of("What is the return policy for shoes?", "Refunds take 5-7 business days after the return.")
    out = ReflectionOutput.model_validate({"facts": [
        {"content": "Refunds take 5-7 business days.", "kind": "semantic", "confidence": 0.9},
        {"content": "Zebras are striped.", "kind": "semantic", "confidence": 0.9}]})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns, aliases={}, now=NOW)
    assert plan.drafts[0].derived_from == (turns[1].id,)
    assert plan.drafts[1].derived_from == ()


def test_worker_is_due_on_count_or_age() -> None:
    from datetime import timedelta

    from graphmem.reflection.worker import due

    old = NOW - timedelta(seconds=120)
    assert not due(0, None, now=NOW, batch_size=5, interval_s=60)
    assert not due(2, NOW - timedelta(seconds=10), now=NOW, batch_size=5, interval_s=60)
    assert due(5, NOW, now=NOW, batch_size=5, interval_s=60)
    assert due(1, old, now=NOW, batch_size=5, interval_s=60)


def test_cli_reflect_without_an_llm_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from graphmem.cli import cli

    monkeypatch.delenv("GRAPHMEM_LLM_BASE_URL", raising=False)
    result = CliRunner().invoke(cli, ["reflect", "task", "ns", "task-1"])
    assert isinstance(result.exception, ConfigError)
    assert "GRAPHMEM_LLM_BASE_URL" in str(result.exception)


def test_a_fact_copied_from_the_prompt_is_not_written_and_edges_point_at_the_original() -> None:
    out = ReflectionOutput.model_validate({"facts": [
        {"content": "the user lives in paris", "kind": "semantic", "confidence": 1.0},
        {"content": "The user has a cat.", "kind": "semantic", "confidence": 0.9}],
        "relations": [{"source": "F2", "type": "RELATES_TO", "target": "F1"}]})
    plan = plan_reflection(out, namespace="ns", task_id="t", turns=turns_of("I have a cat."),
                           aliases={"M1": "paris"}, now=NOW, shown={"The user lives in Paris.": "paris"})
    assert [d.content for d in plan.drafts] == ["The user has a cat."]
    assert plan.copies == [("the user lives in paris", "paris")]
    assert [(e.source, e.target) for e in plan.edges] == [(0, "paris")]
