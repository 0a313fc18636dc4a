"""Provenance in ranking: a memory's score is multiplied by its writer's trust, and ``min_trust`` keeps apart the
memories of writers trusted less (``retrieval.ranking``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.models import Memory, MemoryKind, trust_of
from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.ranking import LESSON_BONUS, QueryContext, rank
from graphmem.retrieval.types import RerankMode, SearchOptions

NOW = datetime(2026, 1, 1, tzinfo=UTC)
WHEN = "2025-12-01T00:00:00+00:00"
WEIGHTS = FormulaWeights()


def candidate(mid: str, cosine: float, *, trust: float | None = None, kind: str = "episodic",
              fused: float = 1.0) -> Candidate:
    data: dict[str, Any] = {"id": mid, "namespace": "ns", "kind": kind, "content": "one content for all",
                            "created_at": WHEN}
    if trust is not None:
        data.update(writer="somebody", trust=trust)
    return Candidate(data=data, cosine=cosine, fused=fused)


def ranked(cands: dict[str, Candidate], **options: Any) -> list[tuple[str, float, float]]:
    opts = SearchOptions(namespaces=("ns",), **options)
    out = rank(cands, {}, opts, WEIGHTS, lambda c: c.cosine, NOW, QueryContext(), 10)
    return [(r.memory.id, r.score, r.parts.trust) for r in out]


def test_a_low_trust_twin_ranks_below_the_trusted_one_by_its_trust() -> None:
    out = ranked({"trusted": candidate("trusted", 0.8), "low": candidate("low", 0.8, trust=0.5)})
    assert [i for i, _, _ in out] == ["trusted", "low"]
    (_, high, t_high), (_, low, t_low) = out
    assert (t_high, t_low) == (1.0, 0.5)
    assert low == pytest.approx(high * 0.5, abs=1e-5)


def test_trust_scales_but_does_not_override_relevance() -> None:
    out = ranked({"weak": candidate("weak", 0.2, fused=0.1), "strong": candidate("strong", 0.9, trust=0.9)})
    assert [i for i, _, _ in out] == ["strong", "weak"]


@pytest.mark.parametrize("min_trust", [0.0, 0.5, 0.51, 1.0])
def test_min_trust_keeps_apart_the_writers_trusted_less(min_trust: float) -> None:
    cands = {"none": candidate("none", 0.7), "half": candidate("half", 0.9, trust=0.5),
             "full": candidate("full", 0.6, trust=1.0)}
    ids = {i for i, _, _ in ranked(cands, min_trust=min_trust)}
    assert ids == {"none", "full"} | ({"half"} if min_trust <= 0.5 else set())


@pytest.mark.parametrize("rerank", list(RerankMode))
def test_min_trust_holds_in_every_rerank_mode(rerank: RerankMode) -> None:
    cands = {"a": candidate("a", 0.9, trust=0.2), "b": candidate("b", 0.3)}
    assert [i for i, _, _ in ranked(cands, min_trust=0.3, rerank=rerank)] == ["b"]


def test_a_lesson_bonus_is_scaled_by_trust() -> None:
    """A planted "lesson" from a low-trust writer does not jump the queue as a trusted one does."""
    cands = {"lesson": candidate("lesson", 0.8, kind=MemoryKind.LESSON.value, trust=0.3),
             "fact": candidate("fact", 0.8, kind=MemoryKind.SEMANTIC.value)}
    out = dict((i, s) for i, s, _ in ranked(cands))
    trusted = dict((i, s) for i, s, _ in ranked({**cands, "lesson": candidate("lesson", 0.8, kind="lesson")}))
    assert trusted["lesson"] - trusted["fact"] == pytest.approx(LESSON_BONUS, abs=1e-5)
    assert out["lesson"] == pytest.approx(trusted["lesson"] * 0.3, abs=1e-5)
    assert out["lesson"] < out["fact"]


def test_trust_of_counts_a_memory_without_provenance_as_trusted() -> None:
    m = Memory(id="m", namespace="ns", kind=MemoryKind.EPISODIC, content="x")
    assert trust_of(m) == 1.0
    assert trust_of(m.model_copy(update={"writer": "bot", "trust": 0.25})) == 0.25
