"""The formula reranker (pure): what the seeds and the graph found, and the memory's own signals.

score = similarity * cosine (or what the path passed down) + fused * the seed channels' fused activation
        + text * (share of the query's content words it contains, each weighed by how few candidates hold it) ^ 2
          (``retrieval.wordmatch``)
        + length * min(log(1 + characters / 5) / log(1 + length_cap / 5), 1) (a short "See you later!" says little;
          a kana, CJK or Hangul character counts ``CJK_WEIGHT``)
        - question * (it asks rather than tells: its content ends with a question mark, ``asks``)
        + speaker * (it is said by someone the query names: "Caroline: ..." to "What did Caroline research?",
          ``speaker_of``)
        + graph * the activation that came over edges (capped at 1) + time * (created inside the query's time range)
        + entity * (share of the query's entities it is ABOUT)
        + recency * exp time decay + frequency * log access count + confidence * confidence;
then, on the candidates the search statement returned (its best 35 by the score above):
        + answer * (the query asks for a place, a title or a number and it holds one the query does not name,
          ``retrieval.answertype``);
then the context stage (``retrieval.context``): + before/after * the score of its FOLLOWS neighbours
        + task * the best score of the other candidates of its task.
The weights of the relevance and context terms (fused, text, length, question, speaker, answer, graph, time, entity,
before, after, task;
similarity is the scale) are fitted by leave-one-conversation-out cross-validation on the LoCoMo dev split, both
corpora pooled (``python -m benchmarks.fit_ranking --corpus both``, ``benchmarks/results/fit_ranking-both.json``:
held-out recall@10 .780 against .577 for the formula before them, .770 without the answer term; .765 / .762 in a
re-run, ``fit_ranking-both-rerun.json``: runs differ by that much); the defaults are
the weights fitted on all five conversations (the answer term's in 2026-12-06's first fit; the others in the fit
before it, within noise of what later runs choose). They hold the bilingual set too
(``tests/integration/test_bilingual.py``; the fit saw English only).
"""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from graphmem.graph.speaker import SPEAKER_MARKS as SPEAKER_MARKS
from graphmem.graph.speaker import SPEAKER_MAX_CHARS as SPEAKER_MAX_CHARS
from graphmem.graph.speaker import speaker_of as speaker_of


class FormulaWeights(BaseModel):
    model_config = ConfigDict(frozen=True)

    similarity: float = Field(default=0.6, ge=0)
    fused: float = Field(default=0.2, ge=0)
    """The seed channels' fused activation (the best seed 1.0; 0 for a memory found over edges only)."""
    text: float = Field(default=3.0, ge=0)
    """Times the squared share of the query's content words that the memory contains, each word weighed by its
    inverse frequency among the search's candidates (``wordmatch.coverage``, ``wordmatch.word_weights``): how well
    its words match, which the fused term's ranks do not say, for every candidate (one found over edges too)."""
    length: float = Field(default=0.4, ge=0)
    """Times ``length_prior``: a memory with more to say is more likely the one that answers (the cosine of a
    short turn such as "Sure thing Nate! See you later!" to a question naming Nate is high, its use low)."""
    length_cap: int = Field(default=200, ge=1)
    """Weighted characters (``weighted_length``) at or above which ``length_prior`` is 1: about 40 English words."""
    question: float = Field(default=0.3, ge=0)
    """Taken off a memory that asks rather than tells (``asks``: "Have you been to the lake?" holds the question's
    words, not an answer). A quarter of LoCoMo's turns end with a question mark, an eighth of the evidence turns."""
    speaker: float = Field(default=0.2, ge=0)
    """Added when the memory is said by someone the query names (``speaker_of``: "Caroline: I researched adoption
    agencies" for "What did Caroline research?"): who said it tells whose fact it is, which a turn that only
    addresses the person ("Thanks, Caroline!") is not. Of LoCoMo's evidence turns in the candidates 97% are said
    by someone the question names, of the others 70%."""
    answer: float = Field(default=0.3, ge=0)
    """Added when the query asks for a place, a title or a number and the memory holds one the query does not name
    (``retrieval.answertype``); applied by the ranking to the candidates the search statement returned, before the
    context stage. Fitted by leave-one-conversation-out on LoCoMo (the folds chose .2-.5; held out .770 -> .780,
    multi-hop .476 -> .512: ``benchmarks/README.md``, "Answer-type term")."""
    graph: float = Field(default=0.4, ge=0)
    """Activation received over edges (FOLLOWS, SIMILAR_TO, shared entities, provenance), capped at 1."""
    time: float = Field(default=0.8, ge=0)
    """Added when the memory was created inside the time range the query names ("in May 2023", "last week")."""
    entity: float = Field(default=0.1, ge=0)
    """Times the share of the entities the query names that the memory is ABOUT."""
    before: float = Field(default=0.3, ge=0)
    """Context stage: times the score of the memory this one FOLLOWS, when that one is a candidate too."""
    after: float = Field(default=0.1, ge=0)
    """Context stage: times the score of the memory that FOLLOWS this one, when that one is a candidate too."""
    task: float = Field(default=0.1, ge=0)
    """Context stage: times the best score of the other candidates from the same task (its session matched)."""
    summary: float = Field(default=0.0, ge=0)
    """Context stage: times the score of its task's summary, when that summary is a candidate (``retrieval.descend``;
    summaries do not count in ``task``)."""
    fold: bool = True
    """Context stage: a result whose source turns better results cover already moves after the others."""
    recency: float = Field(default=0.2, ge=0)
    frequency: float = Field(default=0.02, ge=0)
    """Small on purpose: an access count is a weak signal of use, and a large weight made search worse with use
    (memories returned for one query outranked better ones for the next)."""
    confidence: float = Field(default=0.1, ge=0)
    half_life_days: float = Field(default=30.0, gt=0)
    """Recency halves every this many days (decay rate ln 2 / half life)."""
    frequency_cap: int = Field(default=100, ge=1)
    """Access counts at or above this score 1.0 on the log scale."""


def recency(created: datetime, now: datetime, half_life_days: float) -> float:
    age_days = max((now - created).total_seconds(), 0.0) / 86_400
    return math.exp(-math.log(2) * age_days / half_life_days)


def frequency(access_count: int, cap: int) -> float:
    return min(math.log1p(max(access_count, 0)) / math.log1p(cap), 1.0)


CHARS_PER_WORD = 5.0
"""``length_prior`` reads characters as words at this rate (English averages about 5 with the space)."""
CJK_WEIGHT = 3.7
"""A Chinese, Japanese or Korean character counts as this many characters: on the 40 parallel sentences of
``embed/data/language_reference.json`` (graphmem's own, not a benchmark's) an English sentence has 3.7 characters
per CJK character of its Chinese one (punctuation aside; median 3.71), so a Chinese sentence and its English
translation get the same prior."""
CJK_RANGES = (("\u3040", "\u9fff"), ("\uac00", "\ud7af"), ("\uf900", "\ufaff"))
"""Kana, CJK unified ideographs (and extension A), Hangul syllables, compatibility ideographs: the ranges
``retrieval/search`` counts alike."""


def weighted_length(content: str | None) -> float:
    """Characters, a CJK character counting ``CJK_WEIGHT`` (code points, as Cypher's ``size`` counts)."""
    text = content or ""
    cjk = sum(1 for ch in text if any(lo <= ch <= hi for lo, hi in CJK_RANGES))
    return len(text) + (CJK_WEIGHT - 1) * cjk


def length_prior(content: str | None, cap: int) -> float:
    """``min(log(1 + weighted_length / 5) / log(1 + cap / 5), 1)``: the log of an estimated word count (on LoCoMo
    as good as counting words, held out: benchmarks/results/fit_ranking-both.json), from characters because Cypher
    counts them alike and Chinese has no spaces; a CJK character weighs ``CJK_WEIGHT`` (a 20-character Chinese
    sentence scores as a 74-character English one)."""
    return min(math.log1p(weighted_length(content) / CHARS_PER_WORD) / math.log1p(cap / CHARS_PER_WORD), 1.0)


QUESTION_MARKS = ("?", "\uff1f")
"""An ASCII and a full-width question mark (Chinese)."""


def asks(content: str | None) -> bool:
    """Whether the content ends with a question mark (trailing blanks aside): the memory asks rather than tells."""
    return (content or "").rstrip().endswith(QUESTION_MARKS)


def formula_score(similarity: float, created: datetime, access_count: int, confidence: float, now: datetime,
                  w: FormulaWeights, *, fused: float = 0.0, received: float = 0.0,
                  in_time: bool = False, entity: float = 0.0, text: float = 0.0,
                  length: float = 0.0, asking: bool = False, said: bool = False) -> tuple[float, float, float]:
    """(score, recency part, frequency part); similarity, fused, entity (a share), text (``wordmatch.coverage``), length
    (``length_prior``) and confidence enter as they are, received capped at 1, in_time, asking (``asks``) and said
    (``speaker_of`` is a name the query names) as 0 or 1."""
    rec = recency(created, now, w.half_life_days)
    freq = frequency(access_count, w.frequency_cap)
    total = (w.similarity * similarity + w.fused * fused + w.text * text + w.length * length
             - w.question * (1.0 if asking else 0.0) + w.speaker * (1.0 if said else 0.0)
             + w.graph * min(max(received, 0.0), 1.0)
             + w.time * (1.0 if in_time else 0.0) + w.entity * entity
             + w.recency * rec + w.frequency * freq + w.confidence * confidence)
    return total, rec, freq
