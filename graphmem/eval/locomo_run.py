"""Running the LoCoMo evaluation against the graph: each sample's import (unless already there), each question's
search under one mode with its timings, and the dia ids the retrieved memories reach."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from graphmem.errors import ConfigError
from graphmem.eval.locomo_modes import Mode
from graphmem.eval.locomo_questions import Question
from graphmem.eval.metrics import QuestionScore
from graphmem.importers.plan import ImportPlan
from graphmem.importers.runner import run_plan, unverified, unverified_hint
from graphmem.retrieval.types import SearchOptions, SearchResponse
from graphmem.service import MemoryService
from graphmem.store import Store

Progress = Callable[[int], object]


class Retriever(Protocol):
    async def search(self, query: str, options: SearchOptions) -> SearchResponse: ...


class Usage(Protocol):
    """What production does after a search (``RetrievalService.recorder``): the access counts it records."""

    async def flush(self) -> int: ...


# --- the database side -----------------------------------------------------------------------------------


async def ensure_imported(service: MemoryService, plan: ImportPlan, *, reimport: bool) -> dict[str, Any]:
    """Run the plan unless (``reimport`` False and) every draft id is already accounted for in the graph."""
    if not reimport:
        (row,) = await service.store.read("eval/written_ids", namespace=plan.namespace)
        missing = {m.id for m in plan.memories} - set(row["ids"])
        if not missing:
            hidden = await unverified(service, plan.namespace)
            if hidden:
                raise ConfigError(f"refusing to score: {unverified_hint(plan.namespace, hidden)}")
            return {"namespace": plan.namespace, "imported": False, "line": f"{plan.namespace}: already imported"}
    report = await run_plan(service, plan)
    if report.unverified:
        raise ConfigError(f"refusing to score: {unverified_hint(plan.namespace, report.unverified)}")
    return {"namespace": plan.namespace, "imported": True, "line": report.line(), "seconds": report.seconds}


async def load_reach(store: Store, namespace: str, memory_ids: Iterable[str], turn_dia: dict[str, str],
                     *, chunk: int = 2000) -> dict[str, tuple[str, ...]]:
    """memory id -> dia ids it reaches, read from the graph (turns unknown to ``turn_dia`` are ignored)."""
    ids = sorted(set(memory_ids))
    out: dict[str, tuple[str, ...]] = {}
    for start in range(0, len(ids), chunk):
        rows = await store.read("eval/memory_evidence", ids=ids[start:start + chunk], namespaces=[namespace])
        for r in rows:
            out[r["id"]] = tuple(sorted({turn_dia[t] for t in r["turns"] if t in turn_dia}))
    return out


# --- running ---------------------------------------------------------------------------------------------


@dataclass
class ModeRun:
    """What one mode collected over all samples."""

    scores: list[QuestionScore] = dataclasses.field(default_factory=list)
    by_sample: dict[str, list[QuestionScore]] = dataclasses.field(default_factory=dict)
    timings: dict[str, list[float]] = dataclasses.field(default_factory=lambda: defaultdict(list))
    rerank_used: Counter[str] = dataclasses.field(default_factory=Counter)
    fallbacks: Counter[str] = dataclasses.field(default_factory=Counter)
    cached: int = 0


async def run_questions(
    retriever: Retriever, questions: Sequence[Question], namespace: str, mode: Mode, k: int,
    run: ModeRun, progress: Progress | None = None, usage: Usage | None = None,
) -> dict[int, list[str]]:
    """Search every question in order (sequentially, so the timings are not contended); question index -> ranked
    ids. With ``usage``, the access counts a search recorded are written before the next question, as a service
    in use for weeks would have them."""
    ranked: dict[int, list[str]] = {}
    options = mode.options(namespace, k)
    for q in questions:
        started = time.perf_counter()
        response = await retriever.search(q.text, options)
        run.timings["wall"].append((time.perf_counter() - started) * 1000.0)
        if response.cached:  # a repeated question: its stage timings are those of the first search
            run.cached += 1
        else:
            for stage, ms in response.timings_ms.items():
                run.timings[stage].append(ms)
        run.rerank_used[response.rerank.value] += 1
        if response.fallback_reason:
            run.fallbacks[response.fallback_reason] += 1
        ranked[q.index] = [r.memory.id for r in response.results]
        if usage is not None:
            await usage.flush()
        if progress:
            progress(1)
    return ranked
