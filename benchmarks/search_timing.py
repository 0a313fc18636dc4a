"""Timing searches for the search benchmark: per stage and statement, CPU of both processes, PROFILE, cProfile."""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.retrieval import Channel, RerankMode, RetrievalService, SearchOptions
from graphmem.retrieval.formula import FormulaWeights
from graphmem.security.integrity import Integrity
from graphmem.store import Store
from graphmem.store.store import Row

if TYPE_CHECKING:
    import neo4j

from benchmarks.gc_pauses import GcPauses
from benchmarks.search_data import Dataset, Query, loadavg, log, summary_ms

STAGES = ("embed", "graph", "seeds", "expand", "rerank", "total")
"""graph: the one statement of a search of at most one hop; seeds and expand: the stepwise path's stages."""


# --- timing ----------------------------------------------------------------------------------------------


class TimedStore(Store):
    """A ``Store`` whose reads are timed per statement (client side: packing, network, server) and whose last
    parameters per statement are kept (for PROFILE)."""

    def __init__(self, driver: neo4j.AsyncDriver, settings: Settings) -> None:
        super().__init__(driver, settings)
        self.calls: list[tuple[str, float]] = []
        self.last_params: dict[str, dict[str, Any]] = {}

    @contextlib.contextmanager
    def _timed(self, name: str, params: dict[str, Any]) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.calls.append((name, (time.perf_counter() - started) * 1000))
            self.last_params[name] = params

    async def read(self, name: str, /, **params: Any) -> list[Row]:
        with self._timed(name, params):
            return await super().read(name, **params)

    async def read_row(self, name: str, /, **params: Any) -> Row:
        with self._timed(name, params):
            return await super().read_row(name, **params)

    def take(self) -> list[tuple[str, float]]:
        calls, self.calls = self.calls, []
        return calls


STEPWISE = "stepwise"
"""A MODES entry with this key true runs on a RetrievalService(one_statement=False)."""
UNVERIFIED = "unverified"
"""A MODES entry with this key true runs with signature verification off (the store's ``Integrity(None)``): the
cost of verifying every candidate, measured side by side with the same search verified."""
WEIGHTS = "weights"
"""A MODES entry with this key runs on a RetrievalService with these ``FormulaWeights`` field values."""
MODES: dict[str, dict[str, Any]] = {
    "vector-only": {"channels": (Channel.VECTOR,), "hops": 0, "rerank": RerankMode.NONE},
    "fused": {"hops": 0},
    "fused+expansion": {},  # the defaults: vector + full-text seeds, hops=1, rerank=FORMULA
    # the same search statement by statement (7 round trips), as before the one-statement path: the ratio
    "stepwise": {STEPWISE: True},
    # what-if, for the findings: the default plus the recency and popularity seed channels (opt-in)
    "all-channels+expansion": {"channels": tuple(Channel)},
    # the default without verifying signatures: what verification costs (goal: < 1 ms at p95)
    "fused+expansion-unverified": {UNVERIFIED: True},
    # the default without the text and length terms: what they cost, side by side
    "fused+expansion-no-text-length": {WEIGHTS: {"text": 0.0, "length": 0.0}},
    # the default without the answer-type term (fitted on LoCoMo): what it does to these questions
    "fused+expansion-no-answer-term": {WEIGHTS: {"answer": 0.0}},
}
DEFAULT_MODE = "fused+expansion"


def mode_options(namespace: str, k: int, kw: dict[str, Any]) -> SearchOptions:
    return SearchOptions(namespaces=(namespace,), k=k,
                         **{key: v for key, v in kw.items() if key not in (STEPWISE, UNVERIFIED, WEIGHTS)})


@dataclass
class ModeRecord:
    stages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    e2e: list[float] = field(default_factory=list)
    statements: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    round_trips: list[int] = field(default_factory=list)
    cached: int = 0
    hits: int = 0
    expected: int = 0
    results: list[int] = field(default_factory=list)
    client_cpu: list[float] = field(default_factory=list)
    server_cpu: list[float] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        return {
            "stages": {s: summary_ms(self.stages[s]) for s in STAGES},
            "client_e2e": summary_ms(self.e2e),
            # CPU time per search, all threads: of this Python process (driver, pydantic, the embedding thread)
            # and of the Neo4j JVM (from /proc, 10 ms ticks: only the mean means something)
            "cpu_ms_mean": {"client_process": round(statistics.fmean(self.client_cpu), 2),
                            "neo4j_jvm": round(statistics.fmean(self.server_cpu), 2) if self.server_cpu else None},
            "statements": {name: summary_ms(v) for name, v in sorted(self.statements.items())},
            "statement_round_trips_per_query": {"min": min(self.round_trips), "max": max(self.round_trips),
                                                "mean": round(statistics.fmean(self.round_trips), 2)},
            "responses_cached": self.cached,
            "results_per_query_mean": round(statistics.fmean(self.results), 2),
            "expected_fact_hit_rate": round(self.hits / self.expected, 4) if self.expected else None,
            "expected_fact_queries": self.expected,
        }


def process_cpu_ms(pid: int | None) -> float | None:
    """utime + stime of a process (the Neo4j JVM), in ms; None when it cannot be read."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def settle(pid: int | None, quiet_ms_per_s: float = 150.0, patience_s: float = 600.0) -> dict[str, Any]:
    """Wait until the JVM is quiet: after a bulk load Lucene merges the vector index's segments in the
    background for minutes, a core's worth of CPU that would be measured as search latency."""
    t0 = time.perf_counter()
    readings: list[float] = []
    while True:
        idle = await idle_cpu(pid)
        if idle is None:
            return {"waited_s": 0.0, "readings_ms_per_s": []}
        readings.append(idle)
        if idle <= quiet_ms_per_s or time.perf_counter() - t0 > patience_s:
            return {"waited_s": round(time.perf_counter() - t0, 1), "readings_ms_per_s": readings,
                    "quiet": idle <= quiet_ms_per_s, "threshold_ms_per_s": quiet_ms_per_s}


async def idle_cpu(pid: int | None, seconds: float = 5.0) -> float | None:
    """CPU the JVM burns with no query running (background work), ms per second: the floor under cpu_ms_mean."""
    before = process_cpu_ms(pid)
    await asyncio.sleep(seconds)
    after = process_cpu_ms(pid)
    return round((after - before) / seconds, 1) if before is not None and after is not None else None


async def measure(store: TimedStore, embedder: Embedder, settings: Settings, ds: Dataset,
                  warmup: Sequence[Query], queries: Sequence[Query], k: int, jvm: int | None) -> dict[str, Any]:
    """Every query through every mode (round-robin, the order rotating per query); warm-up first."""
    services = {mode: RetrievalService(store, embedder, settings, one_statement=not kw.get(STEPWISE),
                                       weights=FormulaWeights(**kw.get(WEIGHTS, {})))
                for mode, kw in MODES.items()}
    options = {mode: mode_options(ds.namespace, k, kw) for mode, kw in MODES.items()}
    records = {mode: ModeRecord() for mode in MODES}
    names = list(MODES)
    params: dict[str, dict[str, Any]] = {}
    verified, unverified = store.integrity, Integrity(None)

    def integrity_for(mode: str) -> None:
        store.integrity = unverified if MODES[mode].get(UNVERIFIED) else verified

    for query in warmup:
        for mode in names:
            integrity_for(mode)
            await services[mode].search(query.text, options[mode])
    store.take()
    started = time.perf_counter()
    with GcPauses() as gc_pauses:  # the collector's pauses among the timed searches (not the warm-up)
        for n, query in enumerate(queries):
            order = names[n % len(names):] + names[:n % len(names)]
            for mode in order:
                integrity_for(mode)
                server0, cpu0 = process_cpu_ms(jvm), time.process_time()
                t0 = time.perf_counter()
                response = await services[mode].search(query.text, options[mode])
                e2e = (time.perf_counter() - t0) * 1000
                cpu, server1 = (time.process_time() - cpu0) * 1000, process_cpu_ms(jvm)
                rec = records[mode]
                rec.e2e.append(e2e)
                rec.client_cpu.append(cpu)
                if server0 is not None and server1 is not None:
                    rec.server_cpu.append(server1 - server0)
                for stage in STAGES:
                    if stage in response.timings_ms:
                        rec.stages[stage].append(response.timings_ms[stage])
                calls = store.take()
                if mode == DEFAULT_MODE:  # the parameters of its statements, for PROFILE later
                    params = {name: dict(store.last_params[name]) for name, _ in calls}
                rec.round_trips.append(len(calls))
                for name, ms in calls:
                    rec.statements[name].append(ms)
                rec.cached += int(response.cached)
                rec.results.append(len(response.results))
                if query.fact is not None:
                    rec.expected += 1
                    rec.hits += any(query.fact in r.memory.content for r in response.results)
            if (n + 1) % 50 == 0:
                log(f"  {n + 1}/{len(queries)} queries x {len(names)} modes "
                    f"({(time.perf_counter() - started) / (n + 1) * 1000:.0f} ms per query round)")
    store.integrity = verified
    out = {mode: records[mode].report() for mode in MODES}
    out["python_gc"] = gc_pauses.report()
    out["_profile_params"] = params  # popped by the caller
    return out


# --- PROFILE ---------------------------------------------------------------------------------------------


def flatten_plan(plan: dict[str, Any], depth: int = 0) -> list[dict[str, Any]]:
    args = plan.get("args", {})
    row = {
        "depth": depth, "operator": plan.get("operatorType"), "rows": plan.get("rows"),
        "db_hits": plan.get("dbHits"), "time_ms": round(args["Time"] / 1e6, 3) if "Time" in args else None,
        "page_cache_hits": plan.get("pageCacheHits"), "page_cache_misses": plan.get("pageCacheMisses"),
        "details": str(args.get("Details", ""))[:300],
    }
    out = [row]
    for child in plan.get("children", []):
        out += flatten_plan(child, depth + 1)
    return out


async def profile(store: Store, name: str, params: dict[str, Any], runs: int = 3) -> dict[str, Any]:
    """PROFILE one statement with real parameters; the last of ``runs`` runs is kept (plans and pages warm)."""
    query = "PROFILE " + store.cypher(name)
    walls: list[float] = []
    summary: Any = None
    for _ in range(runs):
        async with store.driver.session(database=store.database) as session:
            t0 = time.perf_counter()
            result = await session.run(query, params)
            summary = await result.consume()
            walls.append((time.perf_counter() - t0) * 1000)
    plan = summary.profile or {}
    operators = flatten_plan(plan)
    return {
        "client_ms_per_run": [round(w, 2) for w in walls],
        "server_ms": (summary.result_available_after or 0) + (summary.result_consumed_after or 0),
        "total_db_hits": sum(o["db_hits"] or 0 for o in operators),
        "rows": plan.get("rows"),
        "operators": operators,
    }


def plan_text(operators: Sequence[dict[str, Any]]) -> str:
    return "\n".join(
        f"{'  ' * o['depth']}{o['operator']}  rows={o['rows']} dbHits={o['db_hits']}"
        + (f" time={o['time_ms']}ms" if o["time_ms"] is not None else "")
        + (f"  [{o['details'][:110]}]" if o["details"] else "")
        for o in operators)


async def python_profile(store: Store, embedder: Embedder, settings: Settings, ds: Dataset,
                         queries: Sequence[Query], k: int) -> dict[str, Any]:
    """Where the event-loop thread spends its time in default-mode searches (the embedding runs in a worker
    thread, outside this profile; time waiting on Neo4j shows as the selector's poll)."""
    service = RetrievalService(store, embedder, settings)
    options = SearchOptions(namespaces=(ds.namespace,), k=k)
    prof = cProfile.Profile()
    cpu0, t0 = time.process_time(), time.perf_counter()
    prof.enable()
    for q in queries:
        await service.search("tell me again: " + q.text, options)  # not the measured strings: no cache hit
    prof.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    def top(sort: str, *restrictions: str | int) -> list[str]:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(sort).print_stats(*restrictions)
        return [ln.rstrip() for ln in out.getvalue().splitlines() if ln.strip()][:45]

    return {"searches": len(queries), "wall_ms_per_search": round(wall * 1000 / len(queries), 1),
            "process_cpu_ms_per_search": round(cpu * 1000 / len(queries), 1),
            "top_by_tottime": top("tottime", 25), "graphmem_by_cumtime": top("cumulative", "graphmem", 25)}


# --- query embedding and torch threads -------------------------------------------------------------------


def thread_check(embedder: Embedder, queries: Sequence[Query], threads: Sequence[int]) -> dict[str, Any]:
    import torch

    before = torch.get_num_threads()
    out: dict[str, Any] = {}
    try:
        for n in threads:
            torch.set_num_threads(n)
            embedder.embed_query("warm up " + queries[0].text)
            times = []
            for q in queries:
                t0 = time.perf_counter()
                embedder.embed_query(q.text)
                times.append((time.perf_counter() - t0) * 1000)
            out[f"{n}_threads"] = summary_ms(times)
            log(f"  embed_query with {n} torch threads: p50 {out[f'{n}_threads']['p50_ms']:.1f} ms, "
                f"p95 {out[f'{n}_threads']['p95_ms']:.1f} ms")
    finally:
        torch.set_num_threads(before)
    out["loadavg"] = loadavg()
    return out


