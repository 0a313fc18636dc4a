"""Pure planning of batch writes: dedupe decisions, ids, rows; property-based with hypothesis."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.errors import ConflictError, ValidationError
from graphmem.models import MemoryDraft, MemoryKind, WriteAction
from graphmem.service.idempotency import key_id, payload_hash, replayed_result
from graphmem.service.planning import (
    Hit,
    content_hash,
    cosine_from_index_score,
    entity_keys,
    index_score_from_cosine,
    plan_batch,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def unit(*xs: float) -> list[float]:
    v = np.array([*xs, *([0.0] * (8 - len(xs)))], dtype=np.float64)
    return list(v / np.linalg.norm(v))


def d(content: str, kind: MemoryKind = MemoryKind.SEMANTIC, **kw: object) -> MemoryDraft:
    return MemoryDraft(namespace="ns", kind=kind, content=content, **kw)  # type: ignore[arg-type]


def plan(drafts: list[MemoryDraft], vectors: list[list[float]], **kw: object):  # type: ignore[no-untyped-def]
    args: dict[str, object] = {"existing_ids": set(), "hash_hits": {}, "vector_hits": {}, "threshold": 0.9,
                               "dedupe": True, "alpha": 0.2, "now": NOW}
    args.update(kw)
    return plan_batch(drafts, vectors, **args)  # type: ignore[arg-type]


def test_content_hash_ignores_case_and_spacing() -> None:
    assert content_hash("Bob  likes\tTea") == content_hash("bob likes tea")
    assert content_hash("Bob likes tea") != content_hash("Bob likes coffee")


@pytest.mark.parametrize("sim", ["cosine", "euclidean"])
@pytest.mark.parametrize("cos", [-0.5, 0.0, 0.5, 0.92, 1.0])
def test_index_score_round_trip(sim: str, cos: float) -> None:
    assert math.isclose(cosine_from_index_score(index_score_from_cosine(cos, sim), sim), cos, abs_tol=1e-9)


def test_in_batch_duplicate_strengthens_the_first() -> None:
    p = plan([d("a"), d("b"), d("c", MemoryKind.EPISODIC)], [unit(1, 0.01), unit(1, 0), unit(1, 0)])
    assert [r.action for r in p.results] == [WriteAction.CREATED, WriteAction.STRENGTHENED, WriteAction.CREATED]
    assert p.results[1].id == p.results[0].id
    assert len(p.creates) == 2
    assert p.strengthen_rows[0]["id"] == p.results[0].id



@pytest.mark.parametrize(("first", "second", "merged"), [(0.3, None, False), (None, 0.3, True), (0.5, 0.5, True),
                                                          (0.5, 0.6, False)])
def test_a_draft_strengthens_no_memory_of_the_batch_trusted_less(first: float | None, second: float | None,
                                                                  merged: bool) -> None:
    p = plan([d("a", writer="w1", trust=first), d("a again", writer="w2", trust=second)], [unit(1), unit(1)])
    assert [r.action for r in p.results] == [
        WriteAction.CREATED, WriteAction.STRENGTHENED if merged else WriteAction.CREATED]
    assert [(m.writer, m.trust) for m in p.creates] == [("w1", first), *([] if merged else [("w2", second)])]

def test_stored_hits_and_existing_ids() -> None:
    p = plan([d("x", id="old"), d("y"), d("z")], [unit(1), unit(0, 1), unit(0, 0, 1)],
             existing_ids={"old"}, hash_hits={1: "h1"}, vector_hits={2: [Hit("v2", 0.95)]})
    assert [(r.action, r.id) for r in p.results] == [
        (WriteAction.EXISTS, "old"), (WriteAction.STRENGTHENED, "h1"), (WriteAction.STRENGTHENED, "v2")]
    assert p.creates == []


def test_below_threshold_creates_and_dedupe_off_always_creates() -> None:
    p = plan([d("y")], [unit(1)], vector_hits={0: [Hit("v", 0.89)]})
    assert p.results[0].action == WriteAction.CREATED
    p = plan([d("y"), d("y")], [unit(1), unit(1)], hash_hits={0: "h"}, dedupe=False)
    assert [r.action for r in p.results] == [WriteAction.CREATED, WriteAction.CREATED]


def test_provenance_goes_to_the_resolved_memory() -> None:
    p = plan([d("y", entities=("Bob",), derived_from=("t1",), task_id="task", source="s", id="mine")], [unit(1)],
             vector_hits={0: [Hit("v", 0.99)]})
    assert p.entity_rows[0]["memory_id"] == "v"
    assert p.derived_rows[0] == {"memory_id": "v", "namespace": "ns", "target_id": "t1", "at": NOW}
    assert p.task_rows[0]["memory_id"] == "v"
    assert p.strengthen_rows[0]["token"] == "mine"


def test_named_entities_are_stored_under_the_extractors_key() -> None:
    p = plan([d("Caroline went hiking.", entities=("Caroline", "Caroline's ", "pottery classes", "'!", "Paris"))],
             [unit(1)])
    assert [r["name"] for r in p.entity_rows] == ["caroline", "pottery class", "paris"]  # distinct, none empty
    assert entity_keys(["Melanie", "MELANIE", "melanie\u2019s"]) == ["melanie"]


texts = st.text(alphabet="abcdefgh ", min_size=1, max_size=12).filter(lambda s: s.strip() != "")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(texts, st.integers(0, 3), st.sampled_from(list(MemoryKind))), min_size=1, max_size=12),
       st.floats(0.5, 1.0))
def test_plan_properties(items: list[tuple[str, int, MemoryKind]], threshold: float) -> None:
    """Every draft gets exactly one result, in order; no two created memories of one kind are duplicates."""
    drafts = [d(t, k) for t, _, k in items]
    vectors = [unit(*([0.0] * axis), 1.0) for _, axis, _ in items]  # same axis -> identical vectors
    p = plan(drafts, vectors, threshold=threshold)
    assert [r.index for r in p.results] == list(range(len(drafts)))
    created = {(m.kind, tuple(round(x, 6) for x in v)) for m, v in zip(p.creates, p.create_vectors, strict=True)}
    assert len(created) == len(p.creates)
    assert len(p.creates) + len(p.strengthen_rows) == len(drafts)
    ids = {r.id for r in p.results}
    assert {m.id for m in p.creates} == ids


@given(st.dictionaries(st.text(max_size=5), st.integers()), st.dictionaries(st.text(max_size=5), st.integers()))
def test_payload_hash_is_order_free_and_discriminating(a: dict[str, int], b: dict[str, int]) -> None:
    assert payload_hash("op", a) == payload_hash("op", dict(reversed(list(a.items()))))
    assert (payload_hash("op", a) == payload_hash("op", b)) == (a == b)
    assert payload_hash("op", a) != payload_hash("other", a)


def test_replay_rules() -> None:
    assert replayed_result({"payload_hash": "h", "result_json": "[1]"}, "h", "r") == "[1]"
    with pytest.raises(ConflictError, match="different payload"):
        replayed_result({"payload_hash": "h", "result_json": "[1]"}, "other", "r")
    with pytest.raises(ValidationError):
        key_id("ns", "")
    with pytest.raises(ValidationError):
        key_id("ns", "x" * 200)
    assert key_id("ns", "abc") == "ns:abc"


def test_guard_skips_a_candidate_with_other_details_and_takes_the_next() -> None:
    hits = [Hit("berlin", 0.97, "Dave moved to Berlin in 2021"), Hit("paris", 0.95, "Dave moved to Paris in 2020")]
    p = plan([d("Dave moved to Paris in 2020.")], [unit(1)], vector_hits={0: hits})
    assert (p.results[0].action, p.results[0].id) == (WriteAction.STRENGTHENED, "paris")
    p = plan([d("Dave moved to Rome in 2020.")], [unit(1)], vector_hits={0: hits})
    assert p.results[0].action == WriteAction.CREATED
    p = plan([d("Dave moved to Rome in 2020.")], [unit(1)], vector_hits={0: hits}, guard=False)
    assert p.results[0].id == "berlin"
