"""The retrieval pipeline: seeds -> fusion -> relation expansion -> rerank, every result explained."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import GraphmemError, ValidationError
from graphmem.llm import LLMClient
from graphmem.models import Memory, Vector, check_namespace, utcnow
from graphmem.retrieval.access import AccessRecorder
from graphmem.retrieval.cache import NamespaceVersions, ResultCache
from graphmem.retrieval.expansion import Activation, Edge, ExpansionConfig, path_steps, seed_state, spread_hop
from graphmem.retrieval.formula import FormulaWeights, formula_score
from graphmem.retrieval.fusion import fuse
from graphmem.retrieval.llm_rerank import LLMReranker, Reranker
from graphmem.retrieval.types import (
    Channel,
    RerankMode,
    ScoreParts,
    SearchOptions,
    SearchResponse,
    SearchResult,
)
from graphmem.store import Store
from graphmem.store.records import memory_from_map
from graphmem.store.store import FULLTEXT_INDEX, VECTOR_INDEX, lucene_escape

MAX_QUERY_CHARS = 2000
EXPAND_TYPES = ["RELATES_TO", "CAUSES", "PART_OF", "IS_A", "SUPPORTS", "CONTRADICTS", "SUPERSEDES", "FOLLOWS",
                "SIMILAR_TO", "DERIVED_FROM", "MERGED_INTO", "ABOUT"]
FRONTIER_LIMIT = 40
FANOUT = 25
LLM_CANDIDATES = 20
MAX_OVERSAMPLE = 4096
_ACCESS_COUNT = int(Memory.model_fields["access_count"].default)
_CONFIDENCE = float(Memory.model_fields["confidence"].default)


class RetrievalService:
    def __init__(self, store: Store, embedder: Embedder, settings: Settings, llm: LLMClient | None = None, *,
                 versions: NamespaceVersions | None = None, recorder: AccessRecorder | None = None,
                 weights: FormulaWeights | None = None, expansion: ExpansionConfig | None = None,
                 observer: Callable[[dict[str, float]], None] | None = None) -> None:
        self.store = store
        self.embedder = embedder
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
        if (hit := self.cache.get(key, options.namespaces)) is not None:
            self._record(hit)
            return hit.model_copy(update={"cached": True})
        response = await self._search(query, options)
        if self.observer is not None:
            self.observer(response.timings_ms)
        self.cache.put(key, options.namespaces, response)
        self._record(response)
        return response

    def _record(self, response: SearchResponse) -> None:
        if self.recorder is not None:
            self.recorder.record([r.memory.id for r in response.results])

    async def _search(self, query: str, options: SearchOptions) -> SearchResponse:
        timings: dict[str, float] = {}
        started = t0 = time.perf_counter()
        now = utcnow()
        qvec = Vector(await asyncio.to_thread(self.embedder.embed_query, query))
        t1 = time.perf_counter()
        timings["embed"] = (t1 - t0) * 1000
        filters = self._filters(options, now)
        channel_scores, seed_keys = await self._seeds(query, qvec, options, filters)
        seeds = fuse(options.fusion, channel_scores, options.channel_weights)
        t2 = time.perf_counter()
        timings["seeds"] = (t2 - t1) * 1000
        state, keys = await self._expand(seeds, seed_keys, options, filters)
        candidates = await self._candidates(seeds, state, keys, options, qvec)
        t3 = time.perf_counter()
        timings["expand"] = (t3 - t2) * 1000
        results, mode, reason = await self._rank(query, candidates, channel_scores, seeds, state, keys,
                                                 options, now)
        t4 = time.perf_counter()
        timings["rerank"] = (t4 - t3) * 1000
        timings["total"] = (t4 - started) * 1000
        return SearchResponse(query=query, results=tuple(results[: options.k]), rerank=mode, fallback_reason=reason,
                              timings_ms={k: round(v, 3) for k, v in timings.items()})

    @staticmethod
    def _filters(options: SearchOptions, now: Any) -> dict[str, Any]:
        statuses = [s.value for s in options.statuses]
        if options.as_of is not None:  # history: what was valid then, whatever happened since (but deletes)
            statuses = ["active", "superseded", "archived"]
        return {"namespaces": list(options.namespaces), "statuses": statuses,
                "kinds": [k.value for k in options.kinds] if options.kinds else None, "now": now,
                "as_of": options.as_of, "after": options.created_after, "before": options.created_before}

    async def _seeds(self, query: str, qvec: list[float], options: SearchOptions,
                     filters: dict[str, Any]) -> tuple[dict[Channel, dict[str, float]], dict[str, str]]:
        """Per channel its scores by memory id; and the element id of every memory seen (for the expansion)."""
        limit = options.seed_k
        calls: dict[Channel, Any] = {}
        for channel in dict.fromkeys(options.channels):
            if channel is Channel.VECTOR:
                calls[channel] = self._vector_seeds(qvec, limit, filters)
            elif channel is Channel.FULLTEXT:
                escaped = lucene_escape(query)
                if escaped.strip():
                    calls[channel] = self.store.read("retrieval/seed_fulltext", index=FULLTEXT_INDEX,
                                                     query=escaped, oversample=limit * 4, limit=limit, **filters)
            elif channel is Channel.RECENCY:
                calls[channel] = self.store.read("retrieval/seed_recency", limit=limit, **filters)
            elif channel is Channel.POPULARITY:
                calls[channel] = self.store.read("retrieval/seed_popularity", limit=limit, **filters)
        rows = await asyncio.gather(*calls.values())
        keys = {r["id"]: r["key"] for result in rows for r in result}
        return {c: {r["id"]: float(r["score"]) for r in result} for c, result in zip(calls, rows, strict=True)}, keys

    async def _vector_seeds(self, qvec: list[float], limit: int, filters: dict[str, Any]) -> list[dict[str, Any]]:
        """The index returns the nearest nodes of ALL namespaces; when the filters leave too few, ask for more
        (x4 each time, up to MAX_OVERSAMPLE) so a small namespace among large ones still gets its seeds."""
        oversample = limit * 4
        available: int | None = None
        while True:
            rows = await self.store.read("retrieval/seed_vector", index=VECTOR_INDEX, embedding=qvec,
                                         oversample=oversample, limit=limit, **filters)
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
        """Activation per node key (element id), and the memory id of every Memory key seen."""
        if options.hops == 0 or not seeds:
            return {}, {}
        keys = {seed_keys[i]: i for i in seeds}
        degree: dict[str, int] = {}
        frontier = {seed_keys[i]: a for i, a in seeds.items()}
        state = seed_state(frontier)
        config = ExpansionConfig(hops=options.hops, decay=self.expansion.decay,
                                 degree_beta=self.expansion.degree_beta, type_weights=self.expansion.type_weights)
        for hop in range(1, options.hops + 1):
            # A hop goes from memories to memories: through a direct edge, or through one entity or turn that
            # both are linked to (memory -ABOUT-> entity <-ABOUT- memory; memory -DERIVED_FROM-> turn <- ...).
            received = await self._step(frontier, keys, degree, state, config, hop, filters)
            via = {k: a for k, a in received.items() if k not in keys}
            if via:
                for k, a in (await self._step(via, keys, degree, state, config, hop, filters)).items():
                    received[k] = received.get(k, 0.0) + a
            frontier = {k: a for k, a in received.items() if k in keys}
        return state, keys

    async def _step(self, frontier: dict[str, float], keys: dict[str, str], degree: dict[str, int],
                    state: dict[str, Activation], config: ExpansionConfig, hop: int,
                    filters: dict[str, Any]) -> dict[str, float]:
        """One walk step from the strongest frontier nodes; records memory keys and degrees as it goes."""
        top = dict(sorted(frontier.items(), key=lambda kv: -kv[1])[:FRONTIER_LIMIT])
        (row,) = await self.store.read("retrieval/expand_hop", frontier=list(top), types=EXPAND_TYPES,
                                       fanout=FANOUT, **filters)
        edges = []
        for node in row["nodes"]:
            here, here_id = node["key"], node["id"]
            degree[here] = int(node["degree"])
            for out, type_, weight, there, there_id, memory in zip(
                    node["out"], node["type"], node["weight"], node["to_key"], node["to_id"], node["to_memory"],
                    strict=True):
                if memory:
                    keys[there] = there_id
                edges.append(Edge(here, there, type_, float(weight), here_id, there_id) if out
                             else Edge(there, here, type_, float(weight), there_id, here_id))
        return spread_hop(state, top, edges, degree, config, hop)

    async def _candidates(self, seeds: dict[str, float], state: dict[str, Activation], keys: dict[str, str],
                          options: SearchOptions, qvec: list[float]) -> dict[str, tuple[dict[str, Any], float]]:
        """Seeds and the most activated expanded memories, with their cosine similarity to the query."""
        expanded = sorted(((a.value, keys[k]) for k, a in state.items() if k in keys and keys[k] not in seeds),
                          reverse=True)[: options.expand_limit]
        ids = list(seeds) + [i for _, i in expanded]
        (row,) = await self.store.read("retrieval/candidates", ids=ids, embedding=qvec)
        return {r["memory"]["id"]: (candidate_map(r["memory"]),
                                    2.0 * r["score"] - 1.0 if r["score"] is not None else 0.0)
                for r in row["candidates"]}

    async def _rank(self, query: str, candidates: dict[str, tuple[dict[str, Any], float]],
                    channel_scores: dict[Channel, dict[str, float]], seeds: dict[str, float],
                    state: dict[str, Activation], keys: dict[str, str], options: SearchOptions,
                    now: Any) -> tuple[list[SearchResult], RerankMode, str | None]:
        """The candidates in score order: the first ``k`` (``LLM_CANDIDATES`` at least for an LLM rerank)."""
        by_id = {mid: state[k] for k, mid in keys.items() if k in state}
        ids = list(candidates)
        if not ids:
            return [], options.rerank, None
        cos = {i: candidates[i][1] for i in ids}
        scored = []
        for i in ids:  # scores of every candidate; the result objects only for those that can be returned
            created_at, access_count, confidence = scoring_fields(candidates[i][0], now)
            act = by_id.get(i)
            fused = seeds.get(i, 0.0)
            received = (act.value - fused) if act else 0.0
            inherited = self._inherited(act, cos, keys) if act and act.path else 0.0
            similarity = max(cos[i], inherited)
            formula, rec, freq = formula_score(similarity, created_at, access_count, confidence, options.as_of or now,
                                               self.weights)
            base = fused + received if options.rerank is RerankMode.NONE else formula
            scored.append((round(base, 6), i, fused, received, similarity, formula, rec, freq))
        scored.sort(key=lambda x: (-x[0], x[1]))
        need = max(options.k, LLM_CANDIDATES) if options.rerank is RerankMode.LLM else options.k
        ranks = {c: {i: r for r, i in enumerate(sorted(s, key=lambda x: -s[x]), 1)} for c, s in channel_scores.items()}
        ordered = []
        for score, i, fused, received, similarity, formula, rec, freq in scored[:need]:
            memory = memory_from_map(candidates[i][0])
            act = by_id.get(i)
            parts = ScoreParts(
                channels={c.value: round(s[i], 6) for c, s in channel_scores.items() if i in s},
                ranks={c.value: r[i] for c, r in ranks.items() if i in r},
                fused=round(fused, 6), expansion=round(received, 6), similarity=round(similarity, 6),
                recency=round(rec, 6), frequency=round(freq, 6), confidence=memory.confidence,
                rerank=round(formula, 6) if options.rerank is not RerankMode.NONE else None,
            )
            ordered.append(SearchResult(memory=memory, score=score, parts=parts,
                                        path=path_steps(act.path) if act and i not in seeds else (),
                                        seed_id=keys.get(act.seed) if act and act.seed and i not in seeds else None))
        if options.rerank is not RerankMode.LLM:
            return ordered, options.rerank, None
        if self.reranker is None:
            return ordered, RerankMode.FORMULA, "no LLM configured"
        head = ordered[:LLM_CANDIDATES]
        try:
            scores = dict(await self.reranker.rank(query, [(r.memory.id, r.memory.content) for r in head]))
        except (GraphmemError, TimeoutError) as exc:
            return ordered, RerankMode.FORMULA, f"LLM rerank failed: {exc.__class__.__name__}: {exc}"[:300]
        reranked = [r.model_copy(update={"score": round(scores[r.memory.id], 6),
                                         "parts": r.parts.model_copy(update={"rerank": scores[r.memory.id]})})
                    for r in head]
        reranked.sort(key=lambda r: (-r.score, -(r.parts.similarity), r.memory.id))
        return reranked + ordered[LLM_CANDIDATES:], RerankMode.LLM, None

    def _inherited(self, act: Activation, cos: dict[str, float], keys: dict[str, str]) -> float:
        """Relevance passed down the path: the seed's cosine times each edge's type and edge weight."""
        seed_id = keys.get(act.seed or "")
        value = cos.get(seed_id or "", 0.0)
        for step in act.path:
            value *= self.expansion.type_weights.get(step.type, 0.0) * step.weight
        return max(value, 0.0) if math.isfinite(value) else 0.0


def scoring_fields(data: dict[str, Any], now: datetime) -> tuple[datetime, int, float]:
    """created_at, access_count and confidence of a ``retrieval/candidates`` memory map (nulls dropped), as the
    ``Memory`` built from it would have them, without building it (only the results returned are built)."""
    created = data.get("created_at")
    return (datetime.fromisoformat(created) if created else now, int(data.get("access_count", _ACCESS_COUNT)),
            float(data.get("confidence", _CONFIDENCE)))


def candidate_map(data: dict[str, Any]) -> dict[str, Any]:
    """A ``retrieval/candidates`` memory map for ``memory_from_map``: its properties are named in the statement,
    so one a node lacks comes back as null; dropped, as ``m {.*}`` would not have had it (the model's default
    applies)."""
    return {k: v for k, v in data.items() if v is not None}
