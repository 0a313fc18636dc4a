"""The parameters of the one search statement (``cypher/retrieval/search.cypher``), pure: what a one-hop search
asks Neo4j for, from its options, the query's context, the formula's weights and the walk's limits."""

from __future__ import annotations

from typing import Any

from graphmem.models import Memory
from graphmem.retrieval import formula
from graphmem.retrieval.expansion import ExpansionConfig
from graphmem.retrieval.formula import CHARS_PER_WORD, CJK_WEIGHT, QUESTION_MARKS, FormulaWeights
from graphmem.retrieval.fusion import RRF_K
from graphmem.retrieval.ranking import QueryContext
from graphmem.retrieval.textquery import fulltext_query
from graphmem.retrieval.types import RerankMode, SearchOptions
from graphmem.retrieval.walk import WalkLimits
from graphmem.retrieval.wordmatch import WORD_BREAKS
from graphmem.store.store import FULLTEXT_INDEX, VECTOR_INDEX

_CONFIDENCE = float(Memory.model_fields["confidence"].default)


def search_params(query: str, qvec: list[float], options: SearchOptions, filters: dict[str, Any],
                  asked: QueryContext, weights: FormulaWeights, expansion: ExpansionConfig, walk: WalkLimits, *,
                  keep: int | None, version_keys: list[str] | None) -> dict[str, Any]:
    """Every parameter of ``retrieval/search`` but the two index row limits (``oversample``, ``fulltext_limit``),
    which the caller sets per run. ``keep``: the candidates returned (None: all); ``version_keys``: the namespace
    version counters to read first (None: none)."""
    w = weights
    return dict(
        channels=[c.value for c in options.channels],
        channel_weights={c.value: cw for c, cw in options.channel_weights.items()},
        fusion=options.fusion.value, rrf_k=RRF_K, seed_k=options.seed_k,
        vector_index=VECTOR_INDEX, embedding=qvec, fulltext_index=FULLTEXT_INDEX, fulltext_query=fulltext_query(query),
        hops=options.hops, frontier_limit=walk.frontier, fanout=walk.fanout, via_limit=walk.via,
        via_fanout=walk.via_fanout, via_max_degree=walk.via_max_degree, types=list(walk.types),
        type_weights=dict(expansion.type_weights), decay=expansion.decay,
        beta=expansion.degree_beta, expand_limit=options.expand_limit,
        rerank="none" if options.rerank is RerankMode.NONE else "formula", w_similarity=w.similarity,
        w_fused=w.fused, w_text=w.text, w_length=w.length,
        length_cap=w.length_cap, chars_per_word=CHARS_PER_WORD, cjk_weight=CJK_WEIGHT,
        w_question=w.question, question_marks=list(QUESTION_MARKS), w_speaker=w.speaker,
        speaker_marks=list(formula.SPEAKER_MARKS), speaker_max_chars=formula.SPEAKER_MAX_CHARS,
        w_graph=w.graph, w_time=w.time, w_entity=w.entity, query_entities=list(asked.entities),
        query_words=list(asked.needles), word_breaks=list(WORD_BREAKS),
        time_from=asked.when.start if asked.when else None, time_to=asked.when.end if asked.when else None,
        w_recency=w.recency, w_frequency=w.frequency, w_confidence=w.confidence,
        half_life_days=w.half_life_days, frequency_cap=w.frequency_cap,
        default_confidence=_CONFIDENCE, keep=keep, version_keys=version_keys, **filters)


__all__ = ["search_params"]
