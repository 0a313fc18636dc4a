"""Fitting the ranking's relevance weights by leave-one-conversation-out cross-validation (pure).

A question's *pool* is every candidate a search weighs (``RetrievalService.candidate_pool``) with the features
the formula reads; a weight setting ranks each pool, and a question scores recall@k of its evidence turns. For each
conversation held out, the setting is chosen on the other conversations only and scored on the held-out one; the
per-fold figures are the honest ones. The setting chosen on all conversations becomes the default, and is checked
on conversations nobody here has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean

from graphmem.retrieval.context import context_bonus, fold_covered
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.ranking import keep_for, uses_context
from graphmem.retrieval.types import RerankMode


@dataclass(frozen=True)
class PoolItem:
    """One candidate of a question's pool: what the formula's relevance terms and the context stage read."""

    id: str
    similarity: float
    fused: float
    received: float
    in_time: bool
    seed: bool
    """Found by a seed channel (else reached over edges only)."""
    entity: float = 0.0
    before: str | None = None
    after: str | None = None
    turns: tuple[str, ...] = ()
    task: str | None = None
    summary: bool = False
    """A task summary: it weighs in the context stage, and is not returned (``SummaryMode.LEAD``)."""
    descended: bool = False
    """Brought by a summary (``retrieval.descend``): always a candidate, as the search adds it after the cut."""
    text: float = 0.0
    """``wordmatch.coverage`` of its content by the query's words."""
    length: float = 0.0
    """``formula.length_prior`` of its content."""
    asking: bool = False
    """``formula.asks`` of its content."""
    said: bool = False
    """``formula.speaker_of`` its content is an entity the query names."""
    answer: bool = False
    """``answertype.answers``: it holds the kind of answer the query asks for (added after the statement's cut)."""


@dataclass(frozen=True)
class PoolQuestion:
    conversation: str
    category: int
    gold: frozenset[str]
    """Evidence dia ids."""
    pool: tuple[PoolItem, ...]
    query: str = ""
    """The question's text (benchmarks that re-read it; the fit does not)."""


Reach = Mapping[str, Sequence[str]]


def base_score(item: PoolItem, w: FormulaWeights) -> float:
    """The relevance part of ``formula_score`` (recency, frequency and confidence are alike across a LoCoMo pool:
    every memory is years old, unused, of the same confidence)."""
    return (w.similarity * item.similarity + w.fused * item.fused + w.text * item.text + w.length * item.length
            + w.graph * min(max(item.received, 0.0), 1.0)
            - w.question * (1.0 if item.asking else 0.0) + w.speaker * (1.0 if item.said else 0.0)
            + w.time * (1.0 if item.in_time else 0.0) + w.entity * item.entity)


def scored(q: PoolQuestion, w: FormulaWeights, expand_limit: int, need: int = 10) -> dict[str, tuple[float, PoolItem]]:
    """The candidates ``ranking.rank`` weighs, with their final scores: the ``expand_limit`` most activated expanded
    memories kept, the ``keep_for`` best by the formula (what the search statement returns), plus the context
    stage's bonus when it is on."""
    walked = (i for i in q.pool if not i.seed and not i.descended)
    expanded = sorted(walked, key=lambda i: (-i.received, i.id))[:expand_limit]
    kept = [i for i in q.pool if i.seed] + expanded + [i for i in q.pool if i.descended and not i.seed]
    base = {i.id: base_score(i, w) for i in kept}
    top = sorted(kept, key=lambda i: (-round(base[i.id], 6), i.id))[: keep_for(need, w, RerankMode.FORMULA)]
    base = {i.id: base[i.id] + (w.answer if i.answer else 0.0) for i in top}  # the answer term: after the cut
    if not uses_context(w, RerankMode.FORMULA):
        return {i.id: (base[i.id], i) for i in top}
    bonus = context_bonus(base, {i.id: i.before for i in top}, {i.id: i.after for i in top}, w.before, w.after,
                          {i.id: i.task for i in top}, w.task, {i.id for i in top if i.summary}, w.summary)
    return {i.id: (base[i.id] + bonus[i.id], i) for i in top}


def finished(order: Sequence[str], items: Mapping[str, PoolItem], w: FormulaWeights) -> list[str]:
    """``order`` as a search returns it: task summaries hidden, and results whose turns a better one already
    covers moved back (when the context stage folds)."""
    shown = [m for m in order if not items[m].summary]
    if uses_context(w, RerankMode.FORMULA) and w.fold:
        shown, _ = fold_covered(shown, {m: items[m].turns for m in shown})
    return shown


def ranked(q: PoolQuestion, w: FormulaWeights, expand_limit: int, need: int = 10) -> list[str]:
    """The pool as ``ranking.rank`` orders it (``scored``, best first, then ``finished``)."""
    final = scored(q, w, expand_limit, need)
    return finished(sorted(final, key=lambda m: (-round(final[m][0], 6), m)), {m: v[1] for m, v in final.items()}, w)


def recall_at(ids: Sequence[str], gold: frozenset[str], reach: Reach, k: int) -> float:
    if not gold:
        return 0.0
    got = {d for mid in ids[:k] for d in reach.get(mid, ())}
    return len(got & gold) / len(gold)


def mean_recall(questions: Iterable[PoolQuestion], w: FormulaWeights, reach: Reach, k: int,
                expand_limit: int = 20) -> float:
    values = [recall_at(ranked(q, w, expand_limit), q.gold, reach, k) for q in questions]
    return fmean(values) if values else 0.0


FITTED = ("fused", "text", "length", "question", "speaker", "answer", "graph", "time", "entity", "before", "after",
          "task")
"""The weights fitted (similarity stays the scale; recency, frequency and confidence do not vary on LoCoMo)."""


def coordinate_ascent(questions: Sequence[PoolQuestion], start: FormulaWeights, values: Mapping[str, Sequence[float]],
                      reach: Reach, k: int, *, rounds: int = 2, expand_limit: int = 20) -> tuple[FormulaWeights, float]:
    """Each weight in turn set to the value of ``values[name]`` that gives the best mean recall@k with the others
    fixed (ties keep the current value), ``rounds`` times over."""
    best, best_recall = start, mean_recall(questions, start, reach, k, expand_limit)
    for _ in range(rounds):
        for name in values:
            for v in values[name]:
                trial = best.model_copy(update={name: v})
                recall = mean_recall(questions, trial, reach, k, expand_limit)
                if recall > best_recall + 1e-9:
                    best, best_recall = trial, recall
    return best, best_recall


@dataclass(frozen=True)
class Fold:
    held_out: str
    chosen: FormulaWeights
    train_recall: float
    held_out_recall: float
    held_out_baseline: float
    """The held-out conversation's recall@k under the baseline (the formula before fitting)."""


def leave_one_out(questions: Sequence[PoolQuestion], start: FormulaWeights, values: Mapping[str, Sequence[float]],
                  reach: Reach, k: int, baseline: FormulaWeights, expand_limit: int = 20) -> list[Fold]:
    """One fold per conversation: the weights fitted on the others, scored on it."""
    folds = []
    for held in sorted({q.conversation for q in questions}):
        train = [q for q in questions if q.conversation != held]
        test = [q for q in questions if q.conversation == held]
        chosen, train_recall = coordinate_ascent(train, start, values, reach, k, expand_limit=expand_limit)
        folds.append(Fold(held, chosen, train_recall, mean_recall(test, chosen, reach, k, expand_limit),
                          mean_recall(test, baseline, reach, k, expand_limit)))
    return folds


__all__ = ["FITTED", "Fold", "PoolItem", "PoolQuestion", "base_score", "coordinate_ascent", "finished",
           "leave_one_out", "mean_recall", "ranked", "recall_at", "scored"]
