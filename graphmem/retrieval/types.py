"""Search options and results: small config objects and enums, not boolean flags."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from graphmem.models import Memory, MemoryKind, MemoryStatus, as_utc


class Channel(StrEnum):
    """Seed channels."""

    VECTOR = "vector"  # native vector index
    FULLTEXT = "fulltext"  # BM25 over content and tags
    RECENCY = "recency"  # newest memories
    POPULARITY = "popularity"  # most accessed memories


class Fusion(StrEnum):
    RRF = "rrf"  # reciprocal rank fusion
    WEIGHTED = "weighted"  # weighted sum of min-max normalised channel scores


class RerankMode(StrEnum):
    LLM = "llm"  # listwise, one LLM call; falls back to formula on timeout or bad output
    FORMULA = "formula"  # similarity, time decay, access frequency, confidence
    NONE = "none"  # keep the fused/expanded order


class ExpansionMode(StrEnum):
    """How the relation expansion scores what it reached from the seeds."""

    SPREADING = "spreading"  # spreading activation, hop by hop, damped by degree (retrieval.expansion)
    PPR = "ppr"  # personalised PageRank over the local subgraph the same walk fetched (retrieval.ppr)


class SummaryMode(StrEnum):
    """What a search does with the task summaries it finds (``retrieval.descend``)."""

    LEAD = "lead"  # they lead down to the nearest turns and facts of their tasks, and are not returned themselves
    RETURN = "return"  # they lead down, and are returned like any memory
    HIDE = "hide"  # not returned and no descent (the expansion still walks from them as from any seed)


class SearchOptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    namespaces: tuple[str, ...] = Field(min_length=1, max_length=16)
    k: int = Field(default=10, ge=1, le=200)
    kinds: tuple[MemoryKind, ...] | None = None
    channels: tuple[Channel, ...] = (Channel.VECTOR, Channel.FULLTEXT)
    """Seed channels. Recency and popularity seeds ignore the query, so they are asked for, not default: on the
    LoCoMo dev split adding them changed no recall or MRR figure by more than .004 (formula rerank: none), on the
    100k search benchmark they lowered hit@10 (.371 vs .414) and cost 10 ms of a 60 ms search (benchmarks/README.md).
    The formula's recency and access-frequency parts still favour recent and much-used memories among those found."""
    channel_weights: dict[Channel, float] = Field(default_factory=lambda: {
        Channel.VECTOR: 1.0, Channel.FULLTEXT: 0.7, Channel.RECENCY: 0.15, Channel.POPULARITY: 0.1})
    fusion: Fusion = Fusion.RRF
    seed_k: int = Field(default=30, ge=1, le=500)
    """How many candidates each seed channel contributes."""
    hops: int = Field(default=1, ge=0, le=3)
    """Relation expansion depth (0: none)."""
    expansion_mode: ExpansionMode = ExpansionMode.SPREADING
    """Spreading activation (the default, one statement for hops <= 1) or personalised PageRank over the local
    subgraph the walk fetched (statement by statement; benchmarks/README.md, "locomo_ppr.py", has the figures)."""
    expand_limit: int = Field(default=20, ge=0, le=1000)
    """How many memories reached over edges (not seeds) become candidates, the most activated. On the LoCoMo dev
    split 10, 25 and 50 gave the same recall and MRR in every mode (a seed's received activation moves it; a memory
    only reached rarely ranks in the first 20), and every one is a cosine to compute (~0.08 ms at 100k)."""
    rerank: RerankMode = RerankMode.FORMULA
    statuses: tuple[MemoryStatus, ...] = (MemoryStatus.ACTIVE,)
    """Which statuses may be returned; the default hides superseded, archived and deleted memories."""
    as_of: datetime | None = None
    """Show what was valid then: valid_from <= as_of < valid_until (any status but deleted)."""
    created_after: datetime | None = None
    created_before: datetime | None = None
    summaries: SummaryMode = SummaryMode.LEAD
    """Task summaries lead to their tasks' turns and facts; returned themselves only with ``return`` (a summary says
    what a session was about, a turn what was said: an agent that wants evidence wants the turn)."""
    consensus: bool = False
    """Demote the results that disagree with the consistent majority about their subject (a poisoning defence,
    ``retrieval.consensus``; one more read per search), and put the results that restate the query word for word
    after all others (``retrieval.echo``). Off by default: benchmarks/poisoning.py measures it."""
    min_trust: float = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    """Keep apart the memories whose writer is trusted less (``Memory.trust``; one without provenance counts as 1):
    such a memory is no seed, is not walked to, and leads nowhere. Whatever it is, a memory's formula score is
    multiplied by its trust."""

    @field_validator("as_of", "created_after", "created_before")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        """A date without a zone is UTC, as a write reads it (Neo4j compares a naive time with nothing stored)."""
        return as_utc(value)


class PathStep(BaseModel):
    """One edge of the path that reached a result: ``source -[type]-> target``."""

    model_config = ConfigDict(frozen=True)

    source_id: str
    target_id: str
    type: str
    weight: float = 1.0


class ScoreParts(BaseModel):
    """Why a result is where it is."""

    model_config = ConfigDict(frozen=True)

    channels: dict[str, float] = Field(default_factory=dict)
    """Per seed channel: that channel's own score (cosine for vector, BM25 for full text, ...)."""
    ranks: dict[str, int] = Field(default_factory=dict)
    """Per seed channel: 1-based rank."""
    fused: float = 0.0
    expansion: float = 0.0
    """Activation received over edges (0 for a seed reached directly)."""
    similarity: float = 0.0
    """Cosine similarity to the query (used by the formula)."""
    recency: float = 0.0
    frequency: float = 0.0
    confidence: float = 0.0
    in_time_range: bool = False
    """Created inside the time range the query names ("in May 2023", "last week"): the formula's time term."""
    entity: float = 0.0
    """Share of the entities the query names that the memory is ABOUT."""
    text: float = 0.0
    """The squared share of the query's content words that it contains (``retrieval.wordmatch``)."""
    length: float = 0.0
    """The formula's length prior (``formula.length_prior``: 1 from ``length_cap`` characters on)."""
    question: bool = False
    """It asks rather than tells (its content ends with a question mark, ``formula.asks``): the formula's question
    term was taken off."""
    speaker: bool = False
    """It is said by someone the query names (``formula.speaker_of``): the formula's speaker term was added."""
    answer: bool = False
    """It holds the kind of answer the query asks for (a place, a title, a number; ``retrieval.answertype``): the
    formula's answer term was added."""
    context: float = 0.0
    """What its FOLLOWS neighbours among the candidates added (the turn before or after it matched)."""
    covered_by: str | None = None
    """A better result that already covers the turns this one derives from (so this one moved back)."""
    dissent: str | None = None
    """Why the consensus stage demoted it (it disagrees with the majority of the results about its subject, or it
    restates the query word for word)."""
    trust: float = 1.0
    """Its writer's trust (``Memory.trust``, 1 without provenance): every score term is multiplied by it."""
    lesson: float = 0.0
    """The bonus of a lesson about the query's situation (cosine >= ranking.LESSON_MIN_SIMILARITY): it comes first."""
    rerank: float | None = None
    """The reranker's own score (formula or LLM)."""


class SearchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float
    parts: ScoreParts
    path: tuple[PathStep, ...] = ()
    """Empty for a seed; else the edges from the seed that reached this memory."""
    seed_id: str | None = None


class SearchResponse(BaseModel):
    model_config = ConfigDict(frozen=True)

    query: str
    results: tuple[SearchResult, ...]
    rerank: RerankMode
    """The reranker actually used (``formula`` when ``llm`` fell back)."""
    fallback_reason: str | None = None
    timings_ms: dict[str, float] = Field(default_factory=dict)
    """Per stage: embed, seeds, expand, rerank, total."""
    cached: bool = False
