"""Retrieval evaluation on LoCoMo: import each sample, ask every question under several search modes, and score
how many of its evidence turns the top-k memories reach.

What a memory reaches is read from the graph (its ``DERIVED_FROM`` turns, ``cypher/eval/memory_evidence``) and
turn ids are mapped back to dia ids with the sample's import plan. Categories 1-4 make the main table
(``"all"``); category 5 (adversarial) is reported apart. Evidence ids that name no turn are counted and listed;
questions left without valid evidence are excluded from the scores and counted.

The modes are in ``locomo_modes``, the questions in ``locomo_questions``, the import and the searches in
``locomo_run``; this module puts them together, and re-exports their names.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ValidationError
from graphmem.eval.corpus import DEFAULT_CORPUS, corpus_namespace, corpus_plan, eval_namespace
from graphmem.eval.locomo_modes import (
    ALL_CHANNELS,
    DEFAULT_CHANNELS,
    DEFAULT_MODES,
    MODES,
    Mode,
    check_ks,
    check_modes,
    split_modes,
)
from graphmem.eval.locomo_questions import Question, prepare_questions, restrict_sample, select_samples, turn_dia_ids
from graphmem.eval.locomo_run import (
    ModeRun,
    Progress,
    Retriever,
    Usage,
    ensure_imported,
    load_reach,
    run_questions,
)
from graphmem.eval.metrics import QuestionScore, Reach, by_category, latency_summary, score_question
from graphmem.eval.reflection import AfterImport, reflection_hook, reflects, require_llm
from graphmem.importers.locomo import LocomoSample, load_locomo
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.types import RerankMode
from graphmem.service import MemoryService
from graphmem.store import Step

if TYPE_CHECKING:
    from graphmem.llm import LLMClient

MAIN_CATEGORIES = (1, 2, 3, 4)


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
            report["integrity_failures"] = service.store.integrity.failures
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
    "ALL_CHANNELS",
    "DEFAULT_CHANNELS",
    "DEFAULT_MODES",
    "MAIN_CATEGORIES",
    "MODES",
    "Mode",
    "ModeRun",
    "Progress",
    "Question",
    "Retriever",
    "Usage",
    "check_ks",
    "check_modes",
    "count_searches",
    "ensure_imported",
    "eval_namespace",
    "evaluate",
    "evaluate_samples",
    "llm_configured",
    "load_reach",
    "prepare_questions",
    "restrict_sample",
    "run_questions",
    "select_samples",
    "split_modes",
    "turn_dia_ids",
]
