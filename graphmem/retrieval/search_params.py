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
from graphmem.retrieval.vary import FILTERS, in_map
from graphmem.retrieval.walk import WalkLimits
from graphmem.retrieval.wordmatch import WORD_BREAKS
from graphmem.store.store import FULLTEXT_INDEX, VECTOR_INDEX

_CONFIDENCE = float(Memory.model_fields["confidence"].default)

VARYING = ("fulltext_query", "query_words", "query_entities", "time_from", "time_to", "version_keys", "keep",
           "channels", *FILTERS)
"""The parameters whose size or nullness changes from one search to the next, passed in ONE map, ``$vary``.

Neo4j keys a cached plan on the statement's text and on each top-level parameter's type, and for a string or a list
also on its size bucket (0, 1, <=10, <=100, ...: ``ParameterTypeInfo``'s size hint). Passed one by one, the
question's words (a list of 1 to 30), its full-text query (a string of 5 to 900 characters), a time range or none,
the namespace list and the filters made a new cache key every few new questions; each miss planned this 300-line
statement again, 1-2 s on a freshly started server (1.1 s warm), and 13 of a cold server's first 300 searches
stalled on it (``benchmarks/README.md``, "plan cache"). A map parameter carries no size hint, so one plan serves
every question. The fixed-size parameters (weights, limits, the index names, the query vector) stay top-level."""


def search_params(query: str, qvec: list[float], options: SearchOptions, filters: dict[str, Any],
                  asked: QueryContext, weights: FormulaWeights, expansion: ExpansionConfig, walk: WalkLimits, *,
                  keep: int | None, version_keys: list[str] | None) -> dict[str, Any]:
    """Every parameter of ``retrieval/search`` but the two index row limits (``oversample``, ``fulltext_limit``),
    which the caller sets per run. ``keep``: the candidates returned (None: all); ``version_keys``: the namespace
    version counters to read first (None: none). Those in ``VARYING`` are in the map ``vary``."""
    w = weights
    params: dict[str, Any] = dict(
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
    return in_map(VARYING, **params)


def search_filters(options: SearchOptions, now: Any) -> dict[str, Any]:
    """The filters every retrieval statement takes (the common ones: namespaces, statuses, kinds, now, as_of,
    after, before, min_trust), from the search's options."""
    statuses = [s.value for s in options.statuses]
    if options.as_of is not None:  # history: what was valid then, whatever happened since (but deletes)
        statuses = ["active", "superseded", "archived"]
    return {"namespaces": list(options.namespaces), "statuses": statuses,
            "kinds": [k.value for k in options.kinds] if options.kinds else None, "now": now,
            "as_of": options.as_of, "after": options.created_after, "before": options.created_before,
            "min_trust": options.min_trust}


__all__ = ["VARYING", "search_filters", "search_params"]
