"""Retrieval metrics over evidence turns: pure functions, no I/O.

A retrieved memory *reaches* dia ids (an episodic turn memory its own turn, a semantic memory the turns it is
derived from). recall@k is the share of a question's evidence ids reached by its top-k results; the reciprocal
rank is ``1 / rank`` of the first result that reaches any evidence id (0 when none does).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

Reach = Mapping[str, Collection[str]]
"""memory id -> the dia ids it reaches; a memory missing from the map reaches nothing."""


@dataclass(frozen=True)
class Evidence:
    """A question's evidence split against the known turns."""

    valid: tuple[str, ...]
    unmatched: tuple[str, ...]
    """Ids (and malformed tokens) that name no known turn, verbatim, one entry per use."""


def split_known(evidence: Iterable[str], known: Collection[str], malformed: Iterable[str] = ()) -> Evidence:
    """``evidence`` split into ids that name a known turn and the rest (``malformed`` tokens join the rest)."""
    ids = list(dict.fromkeys(evidence))
    return Evidence(
        valid=tuple(e for e in ids if e in known),
        unmatched=(*(e for e in ids if e not in known), *malformed),
    )


def reached(ranked: Sequence[str], reach: Reach, k: int) -> set[str]:
    """The dia ids reached by the first ``k`` memory ids of ``ranked``."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return {d for memory_id in ranked[:k] for d in reach.get(memory_id, ())}


def recall_at_k(ranked: Sequence[str], reach: Reach, gold: Collection[str], k: int) -> float:
    """Share of ``gold`` reached by the top ``k``; ``gold`` must not be empty (such questions are excluded)."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("recall of a question without evidence is undefined")
    return len(reached(ranked, reach, k) & wanted) / len(wanted)


def reciprocal_rank(ranked: Sequence[str], reach: Reach, gold: Collection[str]) -> float:
    """``1 / rank`` (1-based) of the first memory reaching any ``gold`` id; 0.0 when none does."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("reciprocal rank of a question without evidence is undefined")
    for rank, memory_id in enumerate(ranked, start=1):
        if wanted.intersection(reach.get(memory_id, ())):
            return 1.0 / rank
    return 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation between closest ranks (numpy's default);
    NaN for no values."""
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within [0, 100], got {q}")
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


@dataclass(frozen=True)
class QuestionScore:
    """One question under one mode."""

    category: int
    recall: Mapping[int, float]
    """k -> recall@k."""
    rr: float


def score_question(
    category: int, ranked: Sequence[str], reach: Reach, gold: Collection[str], ks: Sequence[int],
) -> QuestionScore:
    return QuestionScore(
        category=category,
        recall={k: recall_at_k(ranked, reach, gold, k) for k in ks},
        rr=reciprocal_rank(ranked, reach, gold),
    )


@dataclass(frozen=True)
class Summary:
    """Means over a group of questions."""

    n: int
    recall: dict[int, float] = field(default_factory=dict)
    mrr: float = math.nan

    def as_dict(self) -> dict[str, float | int]:
        out: dict[str, float | int] = {f"recall@{k}": v for k, v in sorted(self.recall.items())}
        out["mrr"] = self.mrr
        out["n"] = self.n
        return out


def summarise(scores: Sequence[QuestionScore], ks: Sequence[int]) -> Summary:
    """Mean recall@k per k and MRR; NaN means for an empty group."""
    if not scores:
        return Summary(n=0, recall={k: math.nan for k in ks})
    return Summary(
        n=len(scores),
        recall={k: sum(s.recall[k] for s in scores) / len(scores) for k in ks},
        mrr=sum(s.rr for s in scores) / len(scores),
    )


def by_category(
    scores: Sequence[QuestionScore], ks: Sequence[int], *, main: Collection[int] = (1, 2, 3, 4),
) -> dict[str, Summary]:
    """One summary per category (keys ``"1"``, ``"2"``, ...), plus ``"all"`` over the ``main`` categories."""
    groups: dict[int, list[QuestionScore]] = {}
    for s in scores:
        groups.setdefault(s.category, []).append(s)
    out = {str(c): summarise(groups[c], ks) for c in sorted(groups)}
    out["all"] = summarise([s for s in scores if s.category in main], ks)
    return out


def latency_summary(samples: Mapping[str, Sequence[float]]) -> dict[str, dict[str, float | int]]:
    """Per stage: ``{"p50", "p95", "n"}`` of its timings (ms)."""
    return {
        stage: {"p50": percentile(values, 50), "p95": percentile(values, 95), "n": len(values)}
        for stage, values in samples.items()
    }
