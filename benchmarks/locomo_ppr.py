"""Spreading activation against personalised PageRank expansion on the LoCoMo dev split: recall@5/10/20 and MRR per
category (1-4), expansion latency, and PPR's restart probability chosen by leave-one-conversation-out
cross-validation (every fold reported; the held-out figures are the PPR figures to quote).

    .venv/bin/python benchmarks/locomo_ppr.py --data ../shared/data/locomo/locomo-dev.json [--corpus turns|both]

Needs a running Neo4j (GRAPHMEM_NEO4J_URI); imports each conversation idempotently (the namespaces
``graphmem eval locomo`` and ``benchmarks/locomo_ablation.py`` use, so an earlier run's import is reused). Every
search goes through ``RetrievalService.search`` with the default options (formula rerank, one hop), access
recording on as in production (counts reset before each run), questions in order, one pass:

- ``spreading``: the default search (spreading activation, one statement);
- ``spreading-stepwise``: the same search statement by statement, as PPR mode runs: its ``expand`` stage is the
  latency to compare PPR's with (on the ``--stepwise-on`` conversations only, for time: it ranks as ``spreading``);
- ``ppr-<alpha>`` for each ``--alphas`` value.

The PPR subgraphs of the first ``--timed`` searches are kept, and the iteration is timed on them twice: ours
(scipy.sparse power iteration, ``graphmem.retrieval.ppr``) and networkx's ``pagerank`` (graph built from the same
edges; it cannot express the walk that leaves the subgraph, so only its time is compared).
Writes ``benchmarks/results/locomo_ppr.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import graphmem.retrieval.walk as walk
from graphmem.config import Settings
from graphmem.eval.corpus import corpus_namespace, corpus_plan
from graphmem.eval.locomo import (
    MAIN_CATEGORIES,
    MODES,
    Mode,
    ModeRun,
    ensure_imported,
    eval_namespace,
    load_reach,
    prepare_questions,
    run_questions,
    select_samples,
    turn_dia_ids,
)
from graphmem.eval.metrics import QuestionScore, by_category, latency_summary, percentile, score_question
from graphmem.importers.locomo import load_locomo
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.access import AccessRecorder
from graphmem.retrieval.expansion import Edge, ExpansionConfig
from graphmem.retrieval.ppr import personalised_pagerank
from graphmem.retrieval.types import ExpansionMode, SearchOptions
from graphmem.service.factory import open_service
from graphmem.store import Step

KS = (5, 10, 20)
CHOOSE_K = 10
"""The fold's alpha is the one with the best recall@10 (categories 1-4, mean over questions) on the other four."""
DEFAULT_ALPHA = ExpansionConfig().ppr_alpha


@dataclass(frozen=True)
class ExpansionRun(Mode):
    """A ``graphmem.eval.locomo`` mode with an expansion mode."""

    expansion: ExpansionMode = ExpansionMode.SPREADING

    def options(self, namespace: str, k: int) -> SearchOptions:
        return super().options(namespace, k).model_copy(update={"expansion_mode": self.expansion})


Scores = dict[str, dict[str, list[QuestionScore]]]
"""run -> sample -> its questions' scores."""
Subgraph = tuple[dict[str, float], list[Edge], dict[str, int], ExpansionConfig]


def summary(scores: Sequence[QuestionScore]) -> dict[str, Any]:
    return {c: s.as_dict() for c, s in by_category(list(scores), KS, main=MAIN_CATEGORIES).items()
            if c == "all" or int(c) in MAIN_CATEGORIES}


def mean_recall(scores: Sequence[QuestionScore]) -> float:
    return sum(s.recall[CHOOSE_K] for s in scores) / len(scores) if scores else 0.0


def cross_validate(scores: Scores, alphas: Sequence[float]) -> dict[str, Any]:
    """Per held-out conversation: the alpha that does best on the other four, and its figures on the held-out one
    (ties go to the alpha nearest the default)."""
    samples = list(scores["spreading"])
    folds, held = [], []
    for out in samples:
        train = {a: mean_recall([q for s in samples if s != out for q in scores[f"ppr-{a}"][s]]) for a in alphas}
        chosen = max(alphas, key=lambda a: (round(train[a], 6), -abs(a - DEFAULT_ALPHA)))
        mine = scores[f"ppr-{chosen}"][out]
        held += mine
        folds.append({"held_out": out, "train_recall@10": {str(a): round(r, 4) for a, r in train.items()},
                      "chosen_alpha": chosen,
                      "held_out_recall@10": round(mean_recall(mine), 4),
                      "held_out_spreading_recall@10": round(mean_recall(scores["spreading"][out]), 4)})
    return {"folds": folds, "held_out": summary(held)}


def capture(store: list[Subgraph], timings: list[float], keep: int) -> Callable[..., Any]:
    """``walk.personalised_pagerank``, timing every call and keeping the first ``keep`` subgraphs."""
    def timed(seeds: dict[str, float], edges: list[Edge], degree: dict[str, int], config: ExpansionConfig) -> Any:
        started = time.perf_counter()
        out = personalised_pagerank(seeds, edges, degree, config)
        timings.append((time.perf_counter() - started) * 1000)
        if len(store) < keep:
            store.append((dict(seeds), list(edges), dict(degree), config))
        return out
    return timed


def time_iterations(subgraphs: Sequence[Subgraph]) -> dict[str, Any]:
    """Ours against networkx's ``pagerank`` on the same subgraphs (networkx timed with building its graph)."""
    import networkx as nx

    ours, theirs, nodes, edges = [], [], [], []
    for seeds, es, degree, config in subgraphs:
        started = time.perf_counter()
        personalised_pagerank(seeds, es, degree, config)
        ours.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        graph: Any = nx.MultiGraph()
        graph.add_nodes_from(seeds)
        graph.add_weighted_edges_from((e.source, e.target, config.type_weights.get(e.type, 0.0) * e.weight)
                                      for e in set(es) if e.source != e.target)
        nx.pagerank(graph, alpha=1 - config.ppr_alpha, personalization=seeds, weight="weight", tol=1e-10)
        theirs.append((time.perf_counter() - started) * 1000)
        nodes.append(graph.number_of_nodes())
        edges.append(graph.number_of_edges())

    def dist(values: list[float]) -> dict[str, float]:
        return {"p50": round(percentile(values, 50), 3), "p95": round(percentile(values, 95), 3)}
    return {"subgraphs": len(subgraphs), "nodes": dist([float(n) for n in nodes]),
            "edges": dist([float(e) for e in edges]), "ours_ms": dist(ours), "networkx_ms": dist(theirs)}


async def run_corpus(settings: Settings, data: str, corpus: str, alphas: Sequence[float], timed: int,
                     samples: Sequence[str] = (), stepwise_on: Sequence[str] = ()) -> dict[str, Any]:
    formula = MODES["formula"]
    scores: Scores = {}
    timings: dict[str, dict[str, list[float]]] = {}
    subgraphs: list[Subgraph] = []
    ppr_ms: list[float] = []
    walk.personalised_pagerank = capture(subgraphs, ppr_ms, timed)  # type: ignore[attr-defined]
    started = time.monotonic()
    async with open_service(settings) as service:
        recorder = AccessRecorder(service.store)

        def retriever(**kw: Any) -> RetrievalService:
            return RetrievalService(service.store, service.embedder, settings, query_vectors=0,
                                    versions=service.versions, recorder=recorder, **kw)
        spreading = ExpansionRun(formula.channels, formula.hops, formula.rerank)
        ppr = ExpansionRun(formula.channels, formula.hops, formula.rerank, expansion=ExpansionMode.PPR)
        services = {"spreading": (retriever(), spreading),
                    "spreading-stepwise": (retriever(one_statement=False), spreading),
                    **{f"ppr-{a}": (retriever(expansion=ExpansionConfig(ppr_alpha=a)), ppr) for a in alphas}}
        for sample in select_samples(load_locomo(data), samples):
            namespace = corpus_namespace(eval_namespace(sample.sample_id), corpus)
            plan = corpus_plan(sample, namespace, corpus)
            print((await ensure_imported(service, plan, reimport=False))["line"], flush=True)
            scored = [q for q in prepare_questions(sample) if q.gold and q.category in MAIN_CATEGORIES]
            ranked: dict[str, dict[int, list[str]]] = {}
            for name, (search, mode) in services.items():
                if name == "spreading-stepwise" and sample.sample_id not in stepwise_on:
                    continue
                await service.store.write([Step("eval/reset_access", {"namespace": namespace})])
                service.versions.bump(namespace)
                run = ModeRun()
                ranked[name] = await run_questions(search, scored, namespace, mode, max(KS), run, usage=recorder)
                for stage, values in run.timings.items():
                    timings.setdefault(name, {}).setdefault(stage, []).extend(values)
            seen = {mid for one in ranked.values() for ids in one.values() for mid in ids}
            reach = await load_reach(service.store, namespace, seen, turn_dia_ids(plan))
            for name in ranked:
                scores.setdefault(name, {})[sample.sample_id] = [
                    score_question(q.category, ranked[name][q.index], reach, q.gold, KS) for q in scored]
            line = "  ".join(f"{n} {mean_recall(scores[n][sample.sample_id]):.3f}" for n in ranked)
            print(f"{sample.sample_id} R@10: {line}  ({time.monotonic() - started:.0f}s)", flush=True)
    return {
        "runs": {name: {"by_category": summary([q for s in per.values() for q in s]),
                        "by_sample_recall@10": {s: round(mean_recall(v), 4) for s, v in per.items()},
                        "latency_ms": latency_summary(timings[name])} for name, per in scores.items()},
        "ppr_cv": cross_validate(scores, alphas),
        "ppr_iteration_ms": {"p50": round(percentile(ppr_ms, 50), 3), "p95": round(percentile(ppr_ms, 95), 3),
                             "n": len(ppr_ms)},
        "iteration_vs_networkx": time_iterations(subgraphs),
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--corpus", default="both", choices=["turns+facts", "turns", "both"])
    parser.add_argument("--alphas", default="0.2,0.5", help="restart probabilities tried (comma-separated)")
    parser.add_argument("--stepwise-on", default="conv-26", help="conversations (comma-separated) the stepwise "
                                                                  "spreading search runs on (latency reference)")
    parser.add_argument("--timed", type=int, default=200, help="PPR subgraphs timed against networkx, per corpus")
    parser.add_argument("--sample", action="append", default=[], help="only these sample ids (quick runs)")
    parser.add_argument("--out", default="benchmarks/results/locomo_ppr.json")
    args = parser.parse_args()
    alphas = [float(a) for a in args.alphas.split(",")]
    settings = Settings()
    corpora = ["turns+facts", "turns"] if args.corpus == "both" else [args.corpus]
    report: dict[str, Any] = {
        "command": f"python benchmarks/locomo_ppr.py --data {args.data} --corpus {args.corpus} --alphas {args.alphas}"
                   f" --stepwise-on {args.stepwise_on}",
        "alphas": alphas, "default_alpha": DEFAULT_ALPHA, "ks": list(KS), "categories": list(MAIN_CATEGORIES),
        "note": "formula rerank (the default), one hop, access recording on; ppr_cv.held_out: each conversation "
                "scored with the alpha that had the best recall@10 on the other four (the PPR figure to quote); "
                "runs.ppr-<alpha>: every alpha on all five (not for choosing); spreading-stepwise: only the "
                "--stepwise-on conversations (its latency is the reference for PPR's expand stage)",
        "corpora": {},
    }
    for corpus in corpora:
        report["corpora"][corpus] = asyncio.run(run_corpus(settings, args.data, corpus, alphas, args.timed,
                                                                args.sample, args.stepwise_on.split(",")))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for corpus, got in report["corpora"].items():
        for name, run in [*got["runs"].items(), ("ppr (held out)", {"by_category": got["ppr_cv"]["held_out"]})]:
            cats = "  ".join(f"{c}: {v['recall@10']:.3f}" for c, v in run["by_category"].items())
            print(f"{corpus:12s} {name:20s} R@10 {cats}")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
