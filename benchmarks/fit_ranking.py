"""Fit the formula's relevance weights (similarity scale fixed; fused, text, length, question, speaker, answer, graph,
time, entity and the context stage's) by leave-one-conversation-out cross-validation on the LoCoMo dev split, and report
every fold.

    .venv/bin/python -m benchmarks.fit_ranking --data ../shared/data/locomo/locomo-dev.json [--corpus turns]

Needs a running Neo4j (GRAPHMEM_NEO4J_URI; `graphmem neo4j start`). Imports each conversation (idempotently, with
the graph construction of the current settings), collects every question's candidate pool once
(``RetrievalService.candidate_pool``, default options), then fits offline (``graphmem.eval.fit``: coordinate
ascent over ``VALUES``). Writes ``benchmarks/results/fit_ranking[-<corpus>].json``; the weights chosen on all five
conversations are the ``FormulaWeights`` defaults, the per-fold held-out figures are the honest ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from datetime import datetime
from pathlib import Path
from statistics import fmean
from typing import Any

from graphmem.config import Settings
from graphmem.eval.corpus import corpus_namespace, corpus_plan
from graphmem.eval.fit import (
    FITTED,
    Fold,
    PoolItem,
    PoolQuestion,
    Reach,
    coordinate_ascent,
    leave_one_out,
    mean_recall,
)
from graphmem.eval.locomo import (
    MAIN_CATEGORIES,
    ensure_imported,
    eval_namespace,
    load_reach,
    prepare_questions,
    turn_dia_ids,
)
from graphmem.importers.locomo import load_locomo
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.answertype import answers, kinds_of
from graphmem.retrieval.formula import FormulaWeights, asks, length_prior, speaker_of
from graphmem.retrieval.types import SearchOptions
from graphmem.retrieval.wordmatch import coverage
from graphmem.service.factory import open_service

K = 10
VALUES: dict[str, tuple[float, ...]] = {
    "fused": (0.0, 0.1, 0.2, 0.3, 0.5),
    "text": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.6, 2.0, 2.5, 3.0),
    "length": (0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3),
    "question": (0.0, 0.05, 0.1, 0.2, 0.3),
    "speaker": (0.0, 0.1, 0.2, 0.3, 0.4, 0.6),
    "answer": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    "graph": (0.0, 0.1, 0.2, 0.4, 0.8),
    "time": (0.0, 0.1, 0.2, 0.4, 0.6, 0.8),
    "entity": (0.0, 0.1, 0.2, 0.3, 0.4, 0.6),
    "before": (0.0, 0.1, 0.2, 0.3, 0.5),
    "after": (0.0, 0.1, 0.2, 0.3, 0.5),
    "task": (0.0, 0.05, 0.1, 0.2, 0.3),
}
"""The values each fitted weight may take (coordinate ascent, two rounds, from the baseline)."""


async def collect(settings: Settings, data: str, corpus: str, contents: dict[str, str] | None = None,
                  ) -> tuple[list[PoolQuestion], dict[str, tuple[str, ...]]]:
    """Every scored question's candidate pool under the default search options (each candidate's content put in
    ``contents`` when one is given)."""
    questions: list[PoolQuestion] = []
    reach: dict[str, tuple[str, ...]] = {}
    async with open_service(settings) as service:
        retriever = RetrievalService(service.store, service.embedder, settings)
        for sample in load_locomo(data):
            namespace = corpus_namespace(eval_namespace(sample.sample_id), corpus)
            plan = corpus_plan(sample, namespace, corpus)
            print((await ensure_imported(service, plan, reimport=False))["line"], flush=True)
            options = SearchOptions(namespaces=(namespace,), k=K)
            seen: set[str] = set()
            for q in prepare_questions(sample):
                if not q.gold or q.category not in MAIN_CATEGORIES:
                    continue
                candidates, _, asked = await retriever.candidate_pool(q.text, options)
                pool = []
                for mid, c in candidates.items():
                    created = c.data.get("created_at")
                    in_time = bool(asked.when and created
                                   and asked.when.start <= datetime.fromisoformat(created) < asked.when.end)
                    entity = c.entity_hits / len(asked.entities) if asked.entities else 0.0
                    pool.append(PoolItem(mid, retriever.similarity(c), c.fused, c.received, in_time, c.fused > 0.0,
                                         entity, c.before, c.after, c.turns, c.task, c.summary, c.descended,
                                         coverage(c.data.get("content"), asked.words, asked.word_weights),
                                         length_prior(c.data.get("content"), FormulaWeights().length_cap),
                                         asks(c.data.get("content")),
                                         speaker_of(c.data.get("content")) in asked.entities,
                                         answers(kinds_of(c.data.get("content"), c.answer_kinds), asked.kinds,
                                                 asked.named)))
                    seen.add(mid)
                    if contents is not None:
                        contents[mid] = c.data.get("content") or ""
                questions.append(PoolQuestion(sample.sample_id, q.category, frozenset(q.gold), tuple(pool), q.text))
            reach.update(await load_reach(service.store, namespace, seen, turn_dia_ids(plan)))
    return questions, reach


def held_out_by_cat(questions: list[PoolQuestion], folds: list[Fold], reach: Reach) -> dict[str, float]:
    """Held-out recall@10 by category: each question scored with the weights of the fold that held it out."""
    chosen = {f.held_out: f.chosen for f in folds}
    out = {}
    for c in MAIN_CATEGORIES:
        qs = [q for q in questions if q.category == c]
        out[str(c)] = round(fmean(mean_recall([q], chosen[q.conversation], reach, K) for q in qs), 4) if qs else 0.0
    return out


def ablation(questions: list[PoolQuestion], start: FormulaWeights, baseline: FormulaWeights,
             reach: Reach, name: str) -> dict[str, Any]:
    """The same leave-one-conversation-out fit on the same pools with ``name`` held at 0."""
    off = start.model_copy(update={name: 0.0})
    folds = leave_one_out(questions, off, VALUES | {name: (0.0,)}, reach, K, baseline)
    return {"held_out_recall@10": [round(f.held_out_recall, 4) for f in folds],
            "cv_recall@10": round(fmean(f.held_out_recall for f in folds), 4),
            "held_out_by_category_recall@10": held_out_by_cat(questions, folds, reach)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--corpus", default="turns+facts", choices=["turns+facts", "turns", "both"],
                        help="both: the questions of both corpora pooled (a fold holds a conversation out of both)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--ablate", action="append", default=[], choices=FITTED,
                        help="also fit with this term held at 0, on the same pools (repeatable): its folds and "
                             "held-out recall by category beside the full fit's")
    args = parser.parse_args()
    settings = Settings()
    started = time.monotonic()
    questions: list[PoolQuestion] = []
    reach: dict[str, tuple[str, ...]] = {}
    for corpus in (["turns+facts", "turns"] if args.corpus == "both" else [args.corpus]):
        more, more_reach = asyncio.run(collect(settings, args.data, corpus))
        questions += more
        reach |= more_reach
    collected = time.monotonic() - started
    baseline = FormulaWeights().model_copy(update={**{name: 0.0 for name in FITTED}, "fold": False})
    start = baseline.model_copy(update={"fold": True})
    folds = leave_one_out(questions, start, VALUES, reach, K, baseline)
    chosen, all_recall = coordinate_ascent(questions, start, VALUES, reach, K)
    current = FormulaWeights()

    def by_cat(w: FormulaWeights) -> dict[str, float]:
        return {str(c): round(mean_recall([q for q in questions if q.category == c], w, reach, K), 4)
                for c in MAIN_CATEGORIES}

    fitted = {name: getattr(chosen, name) for name in FITTED}
    report = {
        "command": f"python -m benchmarks.fit_ranking --data {args.data} --corpus {args.corpus}"
                   + "".join(f" --ablate {name}" for name in args.ablate),
        "corpus": args.corpus, "k": K, "questions": len(questions), "values": VALUES,
        "baseline": baseline.model_dump(), "start": {"fold": True},
        "folds": [{"held_out": f.held_out, "chosen": {n: getattr(f.chosen, n) for n in FITTED},
                   "train_recall@10": round(f.train_recall, 4), "held_out_recall@10": round(f.held_out_recall, 4),
                   "held_out_baseline_recall@10": round(f.held_out_baseline, 4)} for f in folds],
        "cv_recall@10": round(sum(f.held_out_recall for f in folds) / len(folds), 4),
        "cv_baseline_recall@10": round(sum(f.held_out_baseline for f in folds) / len(folds), 4),
        "chosen_on_all": fitted, "chosen_on_all_recall@10": round(all_recall, 4),
        "current_defaults": {n: getattr(current, n) for n in FITTED},
        "current_defaults_recall@10": round(mean_recall(questions, current, reach, K), 4),
        "by_category_recall@10": {"baseline": by_cat(baseline), "chosen_on_all": by_cat(chosen)},
        "held_out_by_category_recall@10": held_out_by_cat(questions, folds, reach),
        "ablations": {name: ablation(questions, start, baseline, reach, name) for name in args.ablate},
        "collect_seconds": round(collected, 1), "seconds": round(time.monotonic() - started, 1),
        "note": "recall@10 of the evidence turns, mean over questions (categories 1-4); cv figures: mean of the "
                "five held-out conversations, each scored with weights fitted on the other four",
    }
    suffix = {"turns+facts": "", "turns": "-turns", "both": "-both"}[args.corpus]
    out = Path(args.out or f"benchmarks/results/fit_ranking{suffix}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for f in report["folds"]:
        print(f)
    for name, a in report["ablations"].items():
        print(f"without {name}: CV recall@10 {a['cv_recall@10']} (folds {a['held_out_recall@10']}), held out by "
              f"category {a['held_out_by_category_recall@10']} against {report['held_out_by_category_recall@10']}")
    print(f"CV recall@10 {report['cv_recall@10']} (baseline {report['cv_baseline_recall@10']}); chosen on all "
          f"{fitted} -> {report['chosen_on_all_recall@10']}; written to {out}")


if __name__ == "__main__":
    main()
