"""The retrieval pipeline: seeds -> fusion -> relation expansion -> rerank, every result explained."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import GraphmemError, ValidationError
from graphmem.graph.entities import extract_entities
from graphmem.llm import LLMClient
from graphmem.models import check_namespace, trust_of, utcnow
from graphmem.retrieval.access import AccessRecorder
from graphmem.retrieval.answertype import asked_kinds, name_words
from graphmem.retrieval.cache import NamespaceVersions, ResultCache, shared_versions, version_keys, versions_from
from graphmem.retrieval.candidates import Candidate, ChannelScores, from_statement, from_steps
from graphmem.retrieval.consensus import DEFAULT_CONFIG as DEFAULT_CONSENSUS
from graphmem.retrieval.consensus import ConsensusConfig
from graphmem.retrieval.consensus_stage import demote_dissent, pool_size
from graphmem.retrieval.descend import descend, descend_params
from graphmem.retrieval.expansion import Activation, ExpansionConfig
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.fusion import fuse
from graphmem.retrieval.llm_rerank import LLMReranker, Reranker
from graphmem.retrieval.oversample import MAX_OVERSAMPLE, Oversample, filter_key
from graphmem.retrieval.query_vectors import QUERY_VECTORS, QueryVectors
from graphmem.retrieval.ranking import QueryContext, keep_for, rank, weighed
from graphmem.retrieval.search_params import search_filters, search_params
from graphmem.retrieval.textquery import fulltext_query
from graphmem.retrieval.timeparse import parse_time_range
from graphmem.retrieval.types import (
    Channel,
    ExpansionMode,
    RerankMode,
    SearchOptions,
    SearchResponse,
    SearchResult,
)
from graphmem.retrieval.vary import FILTERS, in_map
from graphmem.retrieval.walk import WalkLimits, expand
from graphmem.retrieval.wordmatch import query_words
from graphmem.store import Store
from graphmem.store.store import FULLTEXT_INDEX, VECTOR_INDEX

MAX_QUERY_CHARS = 2000
EXPAND_TYPES = ["RELATES_TO", "CAUSES", "PART_OF", "IS_A", "SUPPORTS", "CONTRADICTS", "SUPERSEDES", "FOLLOWS",
                "SIMILAR_TO", "DERIVED_FROM", "MERGED_INTO", "ABOUT"]
FRONTIER_LIMIT = 40
"""Seeds that walk (the strongest)."""
FANOUT = 25
"""Edges each seed walks (its strongest by type weight * edge weight)."""
VIA_LIMIT = 10
"""Entities and turns that walk on to the memories linked to them (the most activated). This step is most of a
search's database time; on LoCoMo (benchmarks/expansion_limits.py) 10 x 10 kept recall and MRR of 40 x 25
(expanded R@10 .662 vs .655, multi-hop R@5 .299 vs .291; formula mode identical)."""
VIA_FANOUT = 10
"""Edges each of them walks (their strongest)."""
VIA_MAX_DEGREE = 100
"""Entities and turns with more edges than this do not walk on. A hub's edges tie on type and weight, so the
``VIA_FANOUT`` it walks are an arbitrary few of its hundreds of memories; sorting its edges was most of the entity
step's time (benchmarks/expansion_limits.py measures recall with and without the cap)."""
LLM_CANDIDATES = 20
ACCESS_TOP = 3
"""Results of a search whose access counts it raises: the few an agent reads first. Counting all k, cache hits too,
made search worse with use (a pass over the LoCoMo questions raised the counts of memories that then outranked
better ones for the next, unrelated question)."""


def _walk_limits() -> WalkLimits:
    """The walk's limits, read when a search runs (a test may set ``VIA_MAX_DEGREE`` here): the stepwise walk and
    the one statement (``search_params``) take the same."""
    return WalkLimits(frontier=FRONTIER_LIMIT, fanout=FANOUT, via=VIA_LIMIT, via_fanout=VIA_FANOUT,
                      via_max_degree=VIA_MAX_DEGREE, types=EXPAND_TYPES)


class RetrievalService:
    def __init__(self, store: Store, embedder: Embedder, settings: Settings, llm: LLMClient | None = None, *,
                 versions: NamespaceVersions | None = None, recorder: AccessRecorder | None = None,
                 weights: FormulaWeights | None = None, expansion: ExpansionConfig | None = None,
                 observer: Callable[[dict[str, float]], None] | None = None, one_statement: bool = True,
                 query_vectors: int = QUERY_VECTORS, oversample: Oversample | None = None,
                 consensus: ConsensusConfig | None = None) -> None:
        self.store = store
        self.consensus = consensus or DEFAULT_CONSENSUS
        self.settings = settings
        self.reranker: Reranker | None = (
            LLMReranker(llm, timeout_s=settings.rerank_timeout_s) if llm is not None else None)
        self.versions = versions or NamespaceVersions()
        self.cache: ResultCache[SearchResponse] = ResultCache(self.versions)
        self.recorder = recorder
        self.weights = weights or FormulaWeights()
        self.expansion = expansion or ExpansionConfig()
        self.observer = observer
        """Called with the stage timings of every search that ran (not of cache hits): metrics."""
        self.one_statement = one_statement
        """Spreading-mode searches of at most one hop run as ONE statement (``retrieval/search``); False: statement
        by statement (seeds, each expansion step, candidates), the reference the one statement is tested against.
        Personalised PageRank mode (``ExpansionMode.PPR``) always runs statement by statement (``retrieval.walk``)."""
        self.oversample = oversample or Oversample()
        """Rows asked of the vector and full-text indexes per filter set (``Oversample(adaptive=False)``: 4x seed_k)."""
        self.vectors = QueryVectors(embedder, query_vectors)

    @property
    def embedder(self) -> Embedder:
        """The query embedder (held by ``vectors``; replacing it keeps the vectors already computed)."""
        return self.vectors.embedder

    @embedder.setter
    def embedder(self, embedder: Embedder) -> None:
        self.vectors.embedder = embedder

    async def search(self, query: str, options: SearchOptions) -> SearchResponse:
        query = " ".join(query.split())
        if not query:
            raise ValidationError("empty query", field="query")
        if len(query) > MAX_QUERY_CHARS:
            raise ValidationError(f"query longer than {MAX_QUERY_CHARS} chars", field="query")
        for ns in options.namespaces:
            try:
                check_namespace(ns)
            except ValueError as exc:
                raise ValidationError(str(exc), field="namespaces") from None
        key = (query, options.model_dump_json())
        shared = None  # what any replica wrote (cache.py): read first only when there is an entry to check
        if self.cache.may_hold(key):
            shared = await shared_versions(self.store, options.namespaces)
            if (hit := self.cache.get(key, options.namespaces, shared)) is not None:  # the same question: no new use
                return hit.model_copy(update={"cached": True})
        response, shared = await self._search(query, options, shared)
        if self.observer is not None:
            self.observer(response.timings_ms)
        self.cache.put(key, options.namespaces, response, shared)
        self._record(response)
        return response

    async def prepare(self) -> None:
        """Run the search statement once before the first question needs its plan: on a freshly started Neo4j its
        planning takes 1-4 s, which the first search would wait for. Every later search reuses that plan, whatever
        its question (``search_params.VARYING``). Likewise the descent from task summaries (``descend.VARYING``;
        0.3-0.5 s), with no summary to lead. A read (a unit vector along the first axis) whose rows are
        dropped; an ``EXPLAIN`` would not do, as Neo4j caches its plan apart from the statement's."""
        options, now = SearchOptions(namespaces=("default",)), utcnow()
        axis = [1.0] + [0.0] * (self.embedder.dimension - 1)  # a zero vector has no cosine: the index refuses it
        filters = search_filters(options, now)
        params = self._statement_params("a question", axis, options, filters, self.query_context("a question", now),
                                        keep_all=False, versions=True)
        await self.store.read_row("retrieval/search", oversample=options.seed_k, fulltext_limit=options.seed_k,
                                  **params)
        await self.store.read("retrieval/descend", **descend_params([], [], axis, filters, QueryContext()))

    def _record(self, response: SearchResponse) -> None:
        """A search is a use of what it put first (``ACCESS_TOP``), not of everything it returned."""
        if self.recorder is not None:
            self.recorder.record([(r.memory.namespace, r.memory.id) for r in response.results[:ACCESS_TOP]])

    async def _search(self, query: str, options: SearchOptions,
                      shared: tuple[int, ...] | None) -> tuple[SearchResponse, tuple[int, ...]]:
        """The search, and the ``shared`` versions read before it (when None: read by its statement, first)."""
        timings: dict[str, float] = {}
        started = t0 = time.perf_counter()
        now = utcnow()
        qvec = await self.vectors.get(query)
        t1 = time.perf_counter()
        timings["embed"] = (t1 - t0) * 1000
        filters = search_filters(options, now)
        asked = self.query_context(query, options.as_of or now)
        if options.hops <= 1 and self.one_statement and options.expansion_mode is ExpansionMode.SPREADING:
            candidates, channel_scores, asked, read = await self._graph(query, qvec, options, filters, asked,
                                                                        versions=shared is None)
            shared = shared or read or ()  # read by the statement when not before (an empty stamp never matches)
            timings["graph"] = (time.perf_counter() - t1) * 1000
        else:
            if shared is None:
                shared = await shared_versions(self.store, options.namespaces)
            candidates, channel_scores = await self._stepwise(query, qvec, options, filters, asked, timings)
            asked = weighed(asked, candidates)
        t2 = time.perf_counter()
        candidates = await descend(self.store, candidates, options, qvec, filters, asked)
        t3 = time.perf_counter()
        timings["descend"] = (t3 - t2) * 1000
        results, mode, reason = await self._rank(query, candidates, channel_scores, options, now, asked)
        if options.consensus:
            results = await demote_dissent(self.store, results, options.namespaces, self.consensus, query)
        t4 = time.perf_counter()
        timings["rerank"] = (t4 - t3) * 1000
        timings["total"] = (t4 - started) * 1000
        return SearchResponse(query=query, results=tuple(results[: options.k]), rerank=mode, fallback_reason=reason,
                              timings_ms={k: round(v, 3) for k, v in timings.items()}), shared

    async def _graph(self, query: str, qvec: list[float], options: SearchOptions, filters: dict[str, Any],
                     asked: QueryContext | None = None, *, keep_all: bool = False, versions: bool = False,
                     ) -> tuple[dict[str, Candidate], ChannelScores, QueryContext, tuple[int, ...] | None]:
        """Seeds, fusion, one hop of expansion and the candidates in one statement (``retrieval/search``),
        ``asked`` with the weights of its words among all the candidates (``wordmatch.word_weights``), and the
        shared namespace versions the statement read before anything else (``versions``; else None). A statement
        run again for more index rows does not read them again: the first one's stamp the result.

        The vector and full-text indexes return the best nodes of ALL namespaces: each is asked for as many rows as
        ``self.oversample`` expects to leave ``seed_k`` after the filters (it learns from every statement); when
        they leave fewer and the index had more to give, the statement runs again with 4x that channel's rows (up
        to ``MAX_OVERSAMPLE``), so a small namespace among large ones still gets its seeds.

        The statement ranks the candidates by the formula and returns the ``keep_for`` best (what the context stage
        weighs) and ``KEEP_MARGIN`` more (``keep_all``: every one): reading a hundred memories to return ten was a
        tenth of a search."""
        asked = asked or QueryContext()
        params = self._statement_params(query, qvec, options, filters, asked, keep_all=keep_all, versions=versions)
        keys = {c: filter_key(c, filters) for c in (Channel.VECTOR, Channel.FULLTEXT)}
        limits = {c: self.oversample.limit(key, options.seed_k) for c, key in keys.items()}
        read: tuple[int, ...] | None = None
        while True:
            row = await self.store.read_row("retrieval/search", oversample=limits[Channel.VECTOR],
                                            fulltext_limit=limits[Channel.FULLTEXT], **params)
            if versions and read is None:
                read = versions_from(row["versions"], options.namespaces)
                params["vary"]["version_keys"] = None
            candidates, scores = from_statement(row["candidates"], row["seeds"])
            seen = {Channel.VECTOR: row["vector_seen"], Channel.FULLTEXT: row["fulltext_seen"]}
            for c, key in keys.items():
                self.oversample.observe(key, seen[c], row[f"{c.value}_kept"])
            short = [c for c in limits if c in options.channels and len(scores.get(c, {})) < options.seed_k
                     and seen[c] >= limits[c] and limits[c] < MAX_OVERSAMPLE]
            if not short:
                return candidates, scores, replace(asked, word_weights=tuple(row["word_weights"])), read
            for channel in short:
                limits[channel] = min(limits[channel] * 4, MAX_OVERSAMPLE)

    def _statement_params(self, query: str, qvec: list[float], options: SearchOptions, filters: dict[str, Any],
                          asked: QueryContext, *, keep_all: bool, versions: bool) -> dict[str, Any]:
        return search_params(query, qvec, options, filters, asked, self.weights, self.expansion, _walk_limits(),
                             keep=None if keep_all else keep_for(self._need(options), self.weights, options.rerank),
                             version_keys=version_keys(options.namespaces) if versions else None)

    async def candidate_pool(self, query: str, options: SearchOptions,
                             ) -> tuple[dict[str, Candidate], ChannelScores, QueryContext]:
        """Every candidate a one-hop search weighs, unranked, with the query's time range: what the ranking's
        weights are fitted on (``benchmarks/fit_ranking.py``). Records no access and uses no cache."""
        query = " ".join(query.split())
        now = utcnow()
        qvec = await self.vectors.get(query)
        asked = self.query_context(query, options.as_of or now)
        options = options.model_copy(update={"hops": min(options.hops, 1)})
        filters = search_filters(options, now)
        if options.expansion_mode is ExpansionMode.PPR:
            candidates, scores = await self._stepwise(query, qvec, options, filters, asked, {})
            asked = weighed(asked, candidates)
        else:
            candidates, scores, asked, _ = await self._graph(query, qvec, options, filters, asked, keep_all=True)
        return await descend(self.store, candidates, options, qvec, filters, asked), scores, asked

    async def _stepwise(self, query: str, qvec: list[float], options: SearchOptions, filters: dict[str, Any],
                        asked: QueryContext, timings: dict[str, float]) -> tuple[dict[str, Candidate], ChannelScores]:
        """Seeds, fusion, expansion (``walk.expand``) and the candidates statement by statement: any hops, either
        expansion mode; the ``seeds`` and ``expand`` stage timings go into ``timings``."""
        t1 = time.perf_counter()
        channel_scores, seed_keys = await self._seeds(query, qvec, options, filters)
        seeds = fuse(options.fusion, channel_scores, options.channel_weights)
        t2 = time.perf_counter()
        state, keys = await self._expand(seeds, seed_keys, options, filters)
        candidates = await self._candidates(seeds, state, keys, options, qvec, channel_scores.get(Channel.VECTOR, {}),
                                            asked)
        timings["seeds"], timings["expand"] = (t2 - t1) * 1000, (time.perf_counter() - t2) * 1000
        return candidates, channel_scores

    @staticmethod
    def query_context(query: str, at: datetime) -> QueryContext:
        """The time range, the entities and the content words the query names (``timeparse``, ``graph.entities``,
        ``wordmatch``)."""
        return QueryContext(when=parse_time_range(query, at),
                            entities=tuple(dict.fromkeys(e.name for e in extract_entities(query, limit=8)
                                                         if e.kind != "date")),
                            words=query_words(query), kinds=asked_kinds(query), named=name_words(query))

    def similarity(self, candidate: Candidate) -> float:
        """The formula's similarity term: the cosine, or what the path passed down from its seed if larger."""
        return max(candidate.cosine, self._inherited(candidate) if candidate.path else 0.0)

    async def _seeds(self, query: str, qvec: list[float], options: SearchOptions,
                     filters: dict[str, Any]) -> tuple[dict[Channel, dict[str, float]], dict[str, str]]:
        """Per channel its scores by memory id; and the element id of every memory seen (for the expansion)."""
        limit = options.seed_k
        calls: dict[Channel, Any] = {}
        for channel in dict.fromkeys(options.channels):
            if channel is Channel.VECTOR:
                calls[channel] = self._vector_seeds(qvec, limit, filters)
            elif channel is Channel.FULLTEXT:
                escaped = fulltext_query(query)
                if escaped:
                    calls[channel] = self._fulltext_seeds(escaped, limit, filters)
            elif channel is Channel.RECENCY:
                calls[channel] = self.store.read("retrieval/seed_recency", **in_map(FILTERS, limit=limit, **filters))
            elif channel is Channel.POPULARITY:
                calls[channel] = self.store.read("retrieval/seed_popularity",
                                                 **in_map(FILTERS, limit=limit, **filters))
        rows = await asyncio.gather(*calls.values())
        keys = {r["id"]: r["key"] for result in rows for r in result}
        return {c: {r["id"]: float(r["score"]) for r in result} for c, result in zip(calls, rows, strict=True)}, keys

    async def _fulltext_seeds(self, escaped: str, limit: int, filters: dict[str, Any]) -> list[dict[str, Any]]:
        """Like ``_vector_seeds``: ask for 4x more (up to MAX_OVERSAMPLE) while the filters leave too few."""
        oversample = self.oversample.limit(filter_key(Channel.FULLTEXT, filters), limit)
        while True:
            rows = await self.store.read("retrieval/seed_fulltext", **in_map(
                ("query", *FILTERS), index=FULLTEXT_INDEX, query=escaped, oversample=oversample, limit=limit,
                **filters))
            if len(rows) >= limit or oversample >= MAX_OVERSAMPLE:
                return rows
            oversample = min(oversample * 4, MAX_OVERSAMPLE)

    async def _vector_seeds(self, qvec: list[float], limit: int, filters: dict[str, Any]) -> list[dict[str, Any]]:
        """The index returns the nearest nodes of ALL namespaces; when the filters leave too few, ask for more
        (x4 each time, up to MAX_OVERSAMPLE) so a small namespace among large ones still gets its seeds. It starts
        from ``self.oversample``'s limit but does not teach it (the statement path does)."""
        oversample = self.oversample.limit(filter_key(Channel.VECTOR, filters), limit)
        available: int | None = None
        while True:
            rows = await self.store.read("retrieval/seed_vector", **in_map(
                FILTERS, index=VECTOR_INDEX, embedding=qvec, oversample=oversample, limit=limit, **filters))
            if len(rows) >= limit or oversample >= MAX_OVERSAMPLE:
                return rows
            if available is None:
                counted = await self.store.read("retrieval/count_namespaces", namespaces=filters["namespaces"],
                                                statuses=filters["statuses"])
                available = int(counted[0]["n"])
            if len(rows) >= available:
                return rows
            oversample = min(oversample * 4, MAX_OVERSAMPLE)

    async def _expand(self, seeds: dict[str, float], seed_keys: dict[str, str], options: SearchOptions,
                      filters: dict[str, Any]) -> tuple[dict[str, Activation], dict[str, str]]:
        """Activation per node key (element id), and the memory id of every Memory key seen (``walk.expand``:
        spreading activation or personalised PageRank, as ``options.expansion_mode`` says)."""
        return await expand(self.store, seeds, seed_keys, options, filters, replace(self.expansion, hops=options.hops),
                            _walk_limits())

    async def _candidates(self, seeds: dict[str, float], state: dict[str, Activation], keys: dict[str, str],
                          options: SearchOptions, qvec: list[float], vector: dict[str, float],
                          asked: QueryContext) -> dict[str, Candidate]:
        """Seeds and the most activated expanded memories, with their cosine similarity to the query."""
        expanded = sorted(((a.value, keys[k]) for k, a in state.items() if k in keys and keys[k] not in seeds),
                          reverse=True)[: options.expand_limit]
        ids = list(seeds) + [i for _, i in expanded]
        (row,) = await self.store.read("retrieval/candidates", **in_map(
            ("ids", "namespaces", "query_entities"), ids=ids, namespaces=list(options.namespaces), embedding=qvec,
            query_entities=list(asked.entities)))
        return from_steps(row["candidates"], seeds, state, keys, vector)

    async def _rank(self, query: str, candidates: dict[str, Candidate], channel_scores: ChannelScores,
                    options: SearchOptions, now: Any, asked: QueryContext | None = None,
                    ) -> tuple[list[SearchResult], RerankMode, str | None]:
        """The candidates in score order (``ranking.rank``): the first ``k`` (``LLM_CANDIDATES`` at least for an
        LLM rerank)."""
        candidates = self._verified(candidates)
        if not candidates:
            return [], options.rerank, None
        ordered = rank(candidates, channel_scores, options, self.weights, self.similarity, now,
                       asked or QueryContext(), self._need(options))
        if options.rerank is not RerankMode.LLM:
            return ordered, options.rerank, None
        if self.reranker is None:
            return ordered, RerankMode.FORMULA, "no LLM configured"
        head = ordered[:LLM_CANDIDATES]
        try:
            scores = dict(await self.reranker.rank(query, [(r.memory.id, r.memory.content) for r in head]))
        except (GraphmemError, TimeoutError) as exc:
            return ordered, RerankMode.FORMULA, f"LLM rerank failed: {exc.__class__.__name__}: {exc}"[:300]
        reranked = [r.model_copy(update={"score": round(scores[r.memory.id] * trust_of(r.memory), 6),
                                         "parts": r.parts.model_copy(update={"rerank": scores[r.memory.id]})})
                    for r in head]
        reranked.sort(key=lambda r: (-r.score, -(r.parts.similarity), r.memory.id))
        return reranked + ordered[LLM_CANDIDATES:], RerankMode.LLM, None

    def _verified(self, candidates: dict[str, Candidate]) -> dict[str, Candidate]:
        """The candidates whose signatures verify (``security.integrity``; flag mode: all, failures marked), before
        anything ranks them or shows them to an LLM."""
        kept = self.store.integrity.checked([c.data for c in candidates.values()])
        if len(kept) == len(candidates) and all("integrity" not in d for d in kept):
            return candidates
        by_id = {d["id"]: d for d in kept}
        return {i: replace(c, data=by_id[c.data["id"]]) for i, c in candidates.items() if c.data["id"] in by_id}

    @staticmethod
    def _need(options: SearchOptions) -> int:
        """How many candidates the ranking returns (an LLM rerank reads ``LLM_CANDIDATES``)."""
        k = pool_size(options.k) if options.consensus else options.k
        return max(k, LLM_CANDIDATES) if options.rerank is RerankMode.LLM else k

    def _inherited(self, candidate: Candidate) -> float:
        """Relevance passed down the path: the seed's cosine times each edge's type and edge weight."""
        value = candidate.seed_cosine if candidate.seed_cosine is not None else 0.0
        for step in candidate.path:
            value *= self.expansion.type_weights.get(step.type, 0.0) * step.weight
        return max(value, 0.0) if math.isfinite(value) else 0.0
