"""Retrieval evaluation on LoCoMo: import each sample, ask every question under several search modes, and score
how many of its evidence turns the top-k memories reach.

What a memory reaches is read from the graph (its ``DERIVED_FROM`` turns, ``cypher/eval/memory_evidence``) and
turn ids are mapped back to dia ids with the sample's import plan. Categories 1-4 make the main table
(``"all"``); category 5 (adversarial) is reported apart. Evidence ids that name no turn are counted and listed;
questions left without valid evidence are excluded from the scores and counted.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ValidationError
from graphmem.eval.corpus import DEFAULT_CORPUS, corpus_namespace, corpus_plan, eval_namespace
from graphmem.eval.metrics import QuestionScore, Reach, by_category, latency_summary, score_question, split_known
from graphmem.eval.reflection import AfterImport, reflection_hook, reflects, require_llm
from graphmem.importers.locomo import LocomoSample, load_locomo
from graphmem.importers.plan import ImportPlan
from graphmem.importers.runner import run_plan
from graphmem.models import MemoryKind
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.types import Channel, RerankMode, SearchOptions, SearchResponse, SummaryMode
from graphmem.service import MemoryService
from graphmem.store import Step, Store

if TYPE_CHECKING:
    from graphmem.llm import LLMClient

MAIN_CATEGORIES = (1, 2, 3, 4)
DEFAULT_CHANNELS: tuple[Channel, ...] = SearchOptions.model_fields["channels"].default
"""The seed channels a search uses by default (vector and full text): the modes measure the defaults."""
ALL_CHANNELS = tuple(Channel)
Progress = Callable[[int], object]


@dataclass(frozen=True)
class Mode:
    """One search configuration under test."""

    channels: tuple[Channel, ...]
    hops: int
    rerank: RerankMode
    summaries: SummaryMode = SummaryMode.LEAD

    def options(self, namespace: str, k: int) -> SearchOptions:
        return SearchOptions(namespaces=(namespace,), k=k, channels=self.channels, hops=self.hops,
                             rerank=self.rerank, summaries=self.summaries)


MODES: dict[str, Mode] = {
    "vector": Mode((Channel.VECTOR,), 0, RerankMode.NONE),
    "fused": Mode(DEFAULT_CHANNELS, 0, RerankMode.NONE),
    "expanded": Mode(DEFAULT_CHANNELS, 1, RerankMode.NONE),
    "formula": Mode(DEFAULT_CHANNELS, 1, RerankMode.FORMULA),
    "llm": Mode(DEFAULT_CHANNELS, 1, RerankMode.LLM),
    # not run by default: the formula search with the recency and popularity seeds too (--modes all-channels)
    "all-channels": Mode(ALL_CHANNELS, 1, RerankMode.FORMULA),
    # nor this: the formula search without the descent from the task summaries (they are not returned either)
    "no-descent": Mode(DEFAULT_CHANNELS, 1, RerankMode.FORMULA, SummaryMode.HIDE),
}
DEFAULT_MODES = ("vector", "fused", "expanded", "formula", "llm")


class Retriever(Protocol):
    async def search(self, query: str, options: SearchOptions) -> SearchResponse: ...


class Usage(Protocol):
    """What production does after a search (``RetrievalService.recorder``): the access counts it records."""

    async def flush(self) -> int: ...


# --- preparing the questions -----------------------------------------------------------------------------


def restrict_sample(sample: LocomoSample, sessions: int) -> LocomoSample:
    """``sample`` cut to its first ``sessions`` sessions, keeping only the questions whose evidence all lies in
    them (questions without any evidence id are dropped too)."""
    if sessions < 1:
        raise ValidationError(f"sessions must be at least 1, got {sessions}", field="sessions")
    kept = sample.sessions[:sessions]
    known = {t.dia_id for s in kept for t in s.turns}
    questions = tuple(q for q in sample.questions if q.evidence and all(e in known for e in q.evidence))
    return dataclasses.replace(sample, sessions=kept, questions=questions)


def turn_dia_ids(plan: ImportPlan) -> dict[str, str]:
    """Turn id -> dia id, from the plan's turn memories (each derives from exactly its own turn)."""
    return {m.derived_from[0]: m.metadata["dia_id"] for m in plan.memories
            if m.kind is MemoryKind.EPISODIC and m.derived_from and "dia_id" in m.metadata}


@dataclass(frozen=True)
class Question:
    sample: str
    index: int
    """0-based position in the sample's ``qa`` list (after any restriction)."""
    text: str
    category: int
    gold: tuple[str, ...]
    """The evidence dia ids that name a turn of the sample."""
    unmatched: tuple[str, ...]


def prepare_questions(sample: LocomoSample) -> list[Question]:
    known = {t.dia_id for t in sample.turns}
    out: list[Question] = []
    for i, q in enumerate(sample.questions):
        ev = split_known(q.evidence, known, q.malformed_evidence)
        out.append(Question(sample.sample_id, i, q.question, q.category, ev.valid, ev.unmatched))
    return out


def select_samples(all_samples: Sequence[LocomoSample], wanted: Iterable[str] | None) -> list[LocomoSample]:
    if not wanted:
        return list(all_samples)
    ids = list(dict.fromkeys(wanted))
    by_id = {s.sample_id: s for s in all_samples}
    missing = [s for s in ids if s not in by_id]
    if missing:
        raise ValidationError(f"unknown sample ids {missing}; the file has {sorted(by_id)}", field="sample")
    return [by_id[s] for s in ids]


def check_modes(modes: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(modes))
    unknown = [m for m in chosen if m not in MODES]
    if unknown or not chosen:
        raise ValidationError(f"unknown or no modes {unknown}; choose from {list(MODES)}", field="modes")
    return chosen


def split_modes(modes: Iterable[str], *, llm_configured: bool) -> tuple[list[str], dict[str, str]]:
    """``(modes to run, {skipped mode: why})``: the ``llm`` mode needs an LLM."""
    chosen = check_modes(modes)
    skipped = {m: "no LLM configured" for m in chosen if MODES[m].rerank is RerankMode.LLM and not llm_configured}
    return [m for m in chosen if m not in skipped], skipped


def check_ks(ks: Iterable[int]) -> list[int]:
    out = sorted(set(ks))
    if not out or out[0] < 1 or out[-1] > 200:
        raise ValidationError(f"ks must be within 1..200, got {list(ks)}", field="ks")
    return out


# --- the database side -----------------------------------------------------------------------------------


async def ensure_imported(service: MemoryService, plan: ImportPlan, *, reimport: bool) -> dict[str, Any]:
    """Run the plan unless (``reimport`` False and) every draft id is already accounted for in the graph."""
    if not reimport:
        (row,) = await service.store.read("eval/written_ids", namespace=plan.namespace)
        missing = {m.id for m in plan.memories} - set(row["ids"])
        if not missing:
            return {"namespace": plan.namespace, "imported": False, "line": f"{plan.namespace}: already imported"}
    report = await run_plan(service, plan)
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


def _clean(value: Any) -> Any:
    """NaN -> None, recursively (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


async def evaluate_samples(
    service: MemoryService, retriever: Retriever, samples: Sequence[LocomoSample], *,
    modes: Sequence[str], ks: Sequence[int], reimport: bool = False, sessions: int | None = None,
    progress: Progress | None = None, corpus: str = DEFAULT_CORPUS, passes: int = 1, usage: Usage | None = None,
    graph_tag: str | None = None, after_import: AfterImport | None = None,
) -> dict[str, Any]:
    """The evaluation proper, on an open service and a retriever (see ``evaluate``).

    Each mode starts from zero access counts and asks the questions ``passes`` times in order; with ``usage`` the
    counts accumulate as in production. The main figures are the first pass's; ``passes`` lists every pass's."""
    ks = check_ks(ks)
    k = ks[-1]
    runs = {m: ModeRun() for m in modes}
    imports: list[dict[str, Any]] = []
    questions_total: Counter[str] = Counter()
    excluded: Counter[str] = Counter()
    unmatched: list[dict[str, Any]] = []
    no_turn: set[str] = set()
    if passes < 1:
        raise ValidationError(f"passes must be at least 1, got {passes}", field="passes")
    later: dict[str, list[list[QuestionScore]]] = {m: [[] for _ in range(passes - 1)] for m in modes}
    for sample in samples:
        namespace = corpus_namespace(eval_namespace(sample.sample_id, sessions), corpus, graph_tag)
        plan = corpus_plan(sample, namespace, corpus)
        imports.append(await ensure_imported(service, plan, reimport=reimport))
        if after_import is not None:  # the turns+reflection corpus: graphmem's own facts, written after the turns
            imports[-1] |= await after_import(service, plan)
        questions = prepare_questions(sample)
        for q in questions:
            questions_total[str(q.category)] += 1
            unmatched += [{"sample": q.sample, "question": q.index, "id": e} for e in q.unmatched]
            if not q.gold:
                excluded[str(q.category)] += 1
        scored = [q for q in questions if q.gold]
        ranked: dict[str, list[dict[int, list[str]]]] = {}
        for m in modes:
            await service.store.write([Step("eval/reset_access", {"namespace": namespace})])
            ranked[m] = []
            for p in range(passes):
                service.versions.bump(namespace)  # a new pass is not answered from the result cache
                ranked[m].append(await run_questions(retriever, scored, namespace, MODES[m], k,
                                                     runs[m] if p == 0 else ModeRun(), progress, usage))
        seen = {mid for per_mode in ranked.values() for one in per_mode for ids in one.values() for mid in ids}
        reach: Reach = await load_reach(service.store, namespace, seen, turn_dia_ids(plan))
        no_turn |= {mid for mid in seen if not reach.get(mid)}
        for m in modes:
            scores = [score_question(q.category, ranked[m][0][q.index], reach, q.gold, ks) for q in scored]
            runs[m].scores += scores
            runs[m].by_sample[sample.sample_id] = scores
            for p in range(1, passes):
                later[m][p - 1] += [score_question(q.category, ranked[m][p][q.index], reach, q.gold, ks)
                                    for q in scored]
    results = {
        m: {
            "by_category": {c: s.as_dict() for c, s in by_category(run.scores, ks, main=MAIN_CATEGORIES).items()},
            "by_sample": {sid: by_category(sc, ks, main=MAIN_CATEGORIES)["all"].as_dict()
                          for sid, sc in run.by_sample.items()},
            "latency_ms": latency_summary(run.timings),
            "rerank_used": dict(run.rerank_used),
            "fallbacks": dict(run.fallbacks),
            "cached": run.cached,
            "passes": [by_category(run.scores, ks, main=MAIN_CATEGORIES)["all"].as_dict()]
            + [by_category(sc, ks, main=MAIN_CATEGORIES)["all"].as_dict() for sc in later[m]],
        }
        for m, run in runs.items()
    }
    report: dict[str, Any] = _clean({
        "samples": [s.sample_id for s in samples],
        "sessions": sessions,
        "corpus": corpus,
        "passes": passes,
        "access_recording": usage is not None,
        "graph": graph_tag or "default",
        "ks": ks,
        "modes": list(modes),
        "main_categories": list(MAIN_CATEGORIES),
        "questions": {
            "total": sum(questions_total.values()),
            "by_category": dict(sorted(questions_total.items())),
            "excluded_without_evidence": {"total": sum(excluded.values()),
                                          "by_category": dict(sorted(excluded.items()))},
        },
        "unmatched_evidence": {"count": len(unmatched), "items": unmatched},
        "retrieved_memories_reaching_no_turn": len(no_turn),
        "imports": imports,
        "results": results,
    })
    return report


async def evaluate(
    settings: Settings, data_path: str | Path, *, samples: Iterable[str] | None = None,
    modes: Iterable[str] = DEFAULT_MODES, ks: Sequence[int] = (5, 10, 20), reimport: bool = False,
    sessions: int | None = None, embedder: Embedder | None = None, llm: LLMClient | None = None,
    progress: Progress | None = None, note: Callable[[str], object] | None = None, corpus: str = DEFAULT_CORPUS,
    passes: int = 1, weights: FormulaWeights | None = None, graph_tag: str | None = None,
) -> dict[str, Any]:
    """Import (idempotently: ``reimport`` False skips a namespace that already holds the whole plan) and
    evaluate LoCoMo samples under ``modes``; returns the JSON-ready report.

    ``sessions`` cuts every sample to its first N sessions (and the questions whose evidence lies there), in its
    own namespace. The ``llm`` mode runs only with an LLM (``llm``, or one built from ``settings.llm_base_url``);
    without one it is skipped, said through ``note`` and listed under ``skipped_modes``; the ``turns+reflection``
    corpus is refused without one (``graphmem.eval.reflection``). ``progress`` is called with 1 after each search.
    """
    require_llm(corpus, configured=llm is not None or llm_configured(settings))
    from graphmem.llm import LLMClient
    from graphmem.retrieval import RetrievalService
    from graphmem.retrieval.access import AccessRecorder
    from graphmem.service.factory import open_service

    chosen_modes, skipped = split_modes(modes, llm_configured=llm is not None or llm_configured(settings))
    for mode, why in skipped.items():
        if note:
            note(f"mode {mode} skipped: {why}")
    picked = select_samples(load_locomo(data_path), samples)
    if sessions is not None:
        picked = [restrict_sample(s, sessions) for s in picked]
    own_llm = llm is None and (reflects(corpus) or any(MODES[m].rerank is RerankMode.LLM for m in chosen_modes))
    client = LLMClient(settings) if own_llm else llm
    started = time.monotonic()
    try:
        async with open_service(settings, embedder=embedder) as service:
            # query_vectors=0: every mode embeds its question, so each mode's latency is a whole search's; the
            # access counts are recorded as the API records them (written after each question, not in the background)
            recorder = AccessRecorder(service.store)
            retriever = RetrievalService(service.store, service.embedder, settings, llm=client, query_vectors=0,
                                         versions=service.versions, recorder=recorder, weights=weights)
            report = await evaluate_samples(service, retriever, picked, modes=chosen_modes, ks=ks,
                                            reimport=reimport, sessions=sessions, progress=progress, corpus=corpus,
                                            passes=passes, usage=recorder, graph_tag=graph_tag,
                                            after_import=reflection_hook(corpus, client, note))
    finally:
        if own_llm and client is not None:
            await client.close()
    if client is not None:
        report["llm"] = {"model": client.model, **dataclasses.asdict(client.usage)}
    return {"data": str(data_path), **report, "skipped_modes": skipped,
            "seconds": round(time.monotonic() - started, 1)}


def llm_configured(settings: Settings) -> bool:
    return bool(settings.llm_base_url)


def count_searches(data_path: str | Path, samples: Iterable[str] | None, modes: Sequence[str],
                   sessions: int | None = None, passes: int = 1) -> int:
    """How many searches ``evaluate`` runs for these (runnable) modes: one per mode and scored question."""
    picked = select_samples(load_locomo(data_path), samples)
    if sessions is not None:
        picked = [restrict_sample(s, sessions) for s in picked]
    return passes * len(modes) * sum(1 for s in picked for q in prepare_questions(s) if q.gold)


__all__ = [
    "DEFAULT_MODES",
    "MAIN_CATEGORIES",
    "MODES",
    "Mode",
    "Question",
    "Retriever",
    "count_searches",
    "eval_namespace",
    "evaluate",
    "evaluate_samples",
    "llm_configured",
    "restrict_sample",
    "split_modes",
    "turn_dia_ids",
]
