"""Ranking the candidates of a search (pure): the formula, then the context stage; every result explained.

``retrieval/search`` computes the same formula in Cypher to decide which candidates come back (``keep``); this
scores those again, adds the context stage (``retrieval.context``: FOLLOWS neighbours, provenance folding), and
builds the results with their score parts.

Provenance: every term of a memory's score (formula, context, lesson bonus) is multiplied by its writer's trust
(``Memory.trust``, 1 for a memory without provenance), and one trusted below ``SearchOptions.min_trust`` is no
candidate at all: the seed statements and the walks leave it out (a common filter), so it leads to nothing either;
``rank`` checks again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from typing import Any, NamedTuple

from graphmem.models import Memory, trust_in
from graphmem.retrieval.answertype import answers, kinds_of
from graphmem.retrieval.candidates import Candidate, ChannelScores
from graphmem.retrieval.context import context_bonus, fold_covered
from graphmem.retrieval.formula import FormulaWeights, asks, formula_score, length_prior, speaker_of
from graphmem.retrieval.timeparse import TimeRange
from graphmem.retrieval.types import RerankMode, ScoreParts, SearchOptions, SearchResult, SummaryMode
from graphmem.retrieval.wordmatch import held_share, needles, searchable, word_weights
from graphmem.store.records import memory_from_map

_ACCESS_COUNT = int(Memory.model_fields["access_count"].default)
_CONFIDENCE = float(Memory.model_fields["confidence"].default)
CONTEXT_POOL = 30
"""Candidates the context stage weighs at least (their FOLLOWS neighbours count only when among them). A fixed
pool, not one that grows with k: the ranking of a k=10 search is then the head of a k=20 search's (with a pool of
3k the same question's top 10 differed between the two, and the eval's R@10 from a k=20 search was not what an
agent asking for 10 gets)."""
LESSON_MIN_SIMILARITY = 0.5
"""A lesson (what reflection learnt from a failure) whose cosine to the query reaches this is about the same
situation: it goes before every other result (``LESSON_BONUS``), so an agent reads it before it acts again."""
LESSON_BONUS = 1.0
KEEP_MARGIN = 5
"""Candidates the search statement returns beyond those the ranking needs: its scores and the client's are the
same formula in two languages, so a near tie at the cut may fall either way."""


class Part(NamedTuple):
    """A candidate's formula inputs and parts, for its ``ScoreParts``."""

    similarity: float
    formula: float
    recency: float
    frequency: float
    in_time: bool
    entity: float
    text: float
    length: float
    asking: bool
    said: bool


@dataclass(frozen=True)
class QueryContext:
    """What the query itself names: a time range, entities (lowercase names, as ``graph.entities`` finds) and its
    content words (``wordmatch.query_words``, for the text term), with each word's weight among the candidates
    (``wordmatch.word_weights``, as the search statement computed them; none: every word weighs 1)."""

    when: TimeRange | None = None
    entities: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    word_weights: tuple[float, ...] = ()
    kinds: frozenset[str] = frozenset()
    """The kinds of answer it asks for (``answertype.asked_kinds``)."""
    named: frozenset[str] = frozenset()
    """Its lowercase words (``answertype.name_words``): an entity it names itself is no answer."""

    @cached_property
    def needles(self) -> tuple[str, ...]:
        """The words as the text term looks for them (``wordmatch.needles``), built once per query."""
        return needles(self.words)


def weighed(asked: QueryContext, candidates: Mapping[str, Candidate]) -> QueryContext:
    """``asked`` with its words weighed among all the ``candidates`` (``wordmatch.word_weights``), as the search
    statement weighs them among its own."""
    contents = (c.data.get("content") for c in candidates.values())
    return replace(asked, word_weights=word_weights(contents, asked.needles))


def uses_context(weights: FormulaWeights, rerank: RerankMode) -> bool:
    return rerank is not RerankMode.NONE and (weights.before > 0 or weights.after > 0 or weights.task > 0
                                              or weights.summary > 0 or weights.fold)


def keep_for(need: int, weights: FormulaWeights, rerank: RerankMode) -> int:
    """How many candidates the statement returns (the best by the formula), and the ranking weighs: what the
    context stage needs (``CONTEXT_POOL``, or ``need`` when more), and ``KEEP_MARGIN`` more."""
    return (max(need, CONTEXT_POOL) if uses_context(weights, rerank) else need) + KEEP_MARGIN


def scoring_fields(data: Mapping[str, Any], now: datetime) -> tuple[datetime, int, float]:
    """created_at, access_count and confidence of a candidate's memory map (nulls dropped), as the ``Memory`` built
    from it would have them, without building it (only the results returned are built)."""
    created = data.get("created_at")
    return (datetime.fromisoformat(created) if created else now, int(data.get("access_count", _ACCESS_COUNT)),
            float(data.get("confidence", _CONFIDENCE)))


def rank(candidates: Mapping[str, Candidate], channel_scores: ChannelScores, options: SearchOptions,
         weights: FormulaWeights, similarity: Callable[[Candidate], float], now: datetime, query: QueryContext,
         need: int) -> list[SearchResult]:
    """The best ``need`` candidates, best first."""
    at = options.as_of or now
    n_entities = len(query.entities)
    parts: dict[str, Part] = {}
    base: dict[str, float] = {}
    trusts = {i: trust_in(c.data) for i, c in candidates.items()}
    for i, c in candidates.items():
        if trusts[i] < options.min_trust:
            continue
        created_at, access_count, confidence = scoring_fields(c.data, now)
        sim = similarity(c)
        in_time = query.when is not None and query.when.start <= created_at < query.when.end
        entity = c.entity_hits / n_entities if n_entities else 0.0
        text = held_share(searchable(c.data.get("content")), query.needles, query.word_weights)
        length = length_prior(c.data.get("content"), weights.length_cap)
        asking = asks(c.data.get("content"))
        said = speaker_of(c.data.get("content")) in query.entities
        formula, rec, freq = formula_score(sim, created_at, access_count, confidence, at, weights, fused=c.fused,
                                           received=c.received, in_time=in_time, entity=entity, text=text,
                                           length=length, asking=asking, said=said)
        base[i] = c.fused + c.received if options.rerank is RerankMode.NONE else formula * trusts[i]
        parts[i] = Part(sim, formula, rec, freq, in_time, entity, text, length, asking, said)
    # the ``keep_for`` best by the formula: what the statement returns (the stepwise path cuts the same way)
    kept = sorted(base, key=lambda i: (-round(base[i], 6), i))[: keep_for(need, weights, options.rerank)]
    answer = {i: weights.answer * trusts[i] if options.rerank is not RerankMode.NONE and weights.answer > 0
              and answers(kinds_of(candidates[i].data.get("content"), candidates[i].answer_kinds), query.kinds,
                          query.named) else 0.0 for i in kept}
    base = {i: base[i] + answer[i] for i in kept}
    context = {i: 0.0 for i in kept}
    covered: dict[str, str] = {}
    if uses_context(weights, options.rerank):
        context = context_bonus(base, {i: candidates[i].before for i in kept},
                                {i: candidates[i].after for i in kept}, weights.before, weights.after,
                                {i: candidates[i].task for i in kept}, weights.task,
                                {i for i in kept if candidates[i].summary}, weights.summary)
    lesson = {i: LESSON_BONUS if options.rerank is not RerankMode.NONE and is_lesson(candidates[i], parts[i][0])
              else 0.0 for i in kept}
    if options.rerank is not RerankMode.NONE:
        context = {i: context[i] * trusts[i] for i in kept}
        lesson = {i: lesson[i] * trusts[i] for i in kept}
    final = {i: round(base[i] + context[i] + lesson[i], 6) for i in kept}
    order = sorted(final, key=lambda i: (-final[i], i))
    if options.summaries is not SummaryMode.RETURN:  # they led to their tasks' memories (retrieval.descend)
        order = [i for i in order if not candidates[i].summary]
    if uses_context(weights, options.rerank) and weights.fold:
        order, covered = fold_covered(order, {i: candidates[i].turns for i in kept})
    ranks = {c: {i: r for r, i in enumerate(sorted(s, key=lambda x: -s[x]), 1)} for c, s in channel_scores.items()}
    return [result(candidates[i], final[i], parts[i], context[i], covered.get(i), channel_scores, ranks, options,
                   lesson[i], answer[i] > 0) for i in order[:need]]


def is_lesson(c: Candidate, similarity: float) -> bool:
    return c.data.get("kind") == "lesson" and similarity >= LESSON_MIN_SIMILARITY


def result(c: Candidate, score: float, part: Part, context: float,
           covered_by: str | None, channel_scores: ChannelScores, ranks: Mapping[Any, Mapping[str, int]],
           options: SearchOptions, lesson: float = 0.0, answer: bool = False) -> SearchResult:
    sim, formula, rec, freq, in_time, entity, text, length, asking, said = part
    memory = memory_from_map(c.data)
    mid = memory.id
    parts = ScoreParts(
        channels={ch.value: round(s[mid], 6) for ch, s in channel_scores.items() if mid in s},
        ranks={ch.value: r[mid] for ch, r in ranks.items() if mid in r},
        fused=round(c.fused, 6), expansion=round(c.received, 6), similarity=round(sim, 6),
        recency=round(rec, 6), frequency=round(freq, 6), confidence=memory.confidence, in_time_range=in_time,
        entity=round(entity, 6), text=round(text, 6), length=round(length, 6), question=asking, speaker=said,
        context=round(context, 6), covered_by=covered_by, lesson=lesson, answer=answer,
        trust=trust_in(c.data),
        rerank=round(formula, 6) if options.rerank is not RerankMode.NONE else None,
    )
    return SearchResult(memory=memory, score=score, parts=parts, path=c.path, seed_id=c.seed_id)


__all__ = ["CONTEXT_POOL", "QueryContext", "keep_for", "rank", "scoring_fields", "uses_context", "weighed"]
