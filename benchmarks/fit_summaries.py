"""Fit the context stage's summary weight (``FormulaWeights.summary``, with ``task`` beside it) by
leave-one-conversation-out cross-validation on the LoCoMo dev split with LoCoMo's session summaries, and report
every fold.

    .venv/bin/python -m benchmarks.fit_summaries --data ../shared/data/locomo/locomo-dev.json

Needs a running Neo4j (``graphmem neo4j start``). Imports each conversation into the ``turns+summaries`` and
``turns+facts+summaries`` corpora (idempotently), collects every question's candidate pool once under the default
search options (the summaries' descent included: ``retrieval.descend``), then fits offline
(``graphmem.eval.fit``): the other weights stay at their defaults, ``summary`` and ``task`` take the values of
``VALUES`` by coordinate ascent. One fold per conversation, both corpora pooled (a fold holds a conversation out of
both): fitted on four, scored on the fifth; and the same over the descent itself (``descent_by_cv``: per fold,
the search with and without it, each fitted on four, the better on them scored on the fifth). Writes
``benchmarks/results/fit_summaries.json``; the setting chosen on all five becomes the default, the held-out figures
are the honest ones.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypedDict

from benchmarks.fit_ranking import collect
from graphmem.config import Settings
from graphmem.eval.fit import PoolQuestion, coordinate_ascent, leave_one_out, mean_recall
from graphmem.eval.locomo import MAIN_CATEGORIES
from graphmem.retrieval.formula import FormulaWeights

K = 10
CORPORA = ("turns+summaries", "turns+facts+summaries")
VALUES: dict[str, tuple[float, ...]] = {
    "summary": (0.0, 0.05, 0.1, 0.2, 0.3, 0.5),
    "task": (0.0, 0.05, 0.1, 0.2, 0.3),
}

DescentFold = TypedDict("DescentFold", {
    "held_out": str, "chosen_mode": str, "chosen": dict[str, float], "train_recall@10": float,
    "held_out_recall@10": float, "held_out_hide_baseline_recall@10": float})
"""One fold of ``descent_by_cv`` (a TypedDict by call: its keys are the report's, ``@`` included)."""


def without_descent(questions: Sequence[PoolQuestion]) -> list[PoolQuestion]:
    """The pools as ``SummaryMode.HIDE`` leaves them: without the memories the summaries brought."""
    return [dataclasses.replace(q, pool=tuple(i for i in q.pool if not i.descended)) for q in questions]


def choose_descent(variants: dict[str, list[PoolQuestion]], start: FormulaWeights,
                   reach: dict[str, tuple[str, ...]]) -> list[DescentFold]:
    """Leave one conversation out over the mode too: per fold, each variant (descent on, off) is fitted on the other
    four, the better one on them is chosen and scored on the held-out conversation."""
    folds: list[DescentFold] = []
    for held in sorted({q.conversation for q in next(iter(variants.values()))}):
        fitted = {name: coordinate_ascent([q for q in qs if q.conversation != held], start, VALUES, reach, K)
                  for name, qs in variants.items()}
        name = max(fitted, key=lambda n: (fitted[n][1], n == "hide"))  # a tie keeps the simpler search
        weights, train = fitted[name]
        test = [q for q in variants[name] if q.conversation == held]
        folds.append({"held_out": held, "chosen_mode": name, "chosen": {n: getattr(weights, n) for n in VALUES},
                      "train_recall@10": round(train, 4),
                      "held_out_recall@10": round(mean_recall(test, weights, reach, K), 4),
                      "held_out_hide_baseline_recall@10": round(mean_recall(
                          [q for q in variants["hide"] if q.conversation == held], start, reach, K), 4)})
    return folds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", default="benchmarks/results/fit_summaries.json")
    args = parser.parse_args()
    settings = Settings()
    started = time.monotonic()
    questions: list[PoolQuestion] = []
    reach: dict[str, tuple[str, ...]] = {}
    per_corpus: dict[str, list[PoolQuestion]] = {}
    for corpus in CORPORA:
        more, more_reach = asyncio.run(collect(settings, args.data, corpus))
        per_corpus[corpus] = more
        questions += more
        reach |= more_reach
    collected = time.monotonic() - started
    baseline = FormulaWeights().model_copy(update={"summary": 0.0})
    folds = leave_one_out(questions, baseline, VALUES, reach, K, baseline)
    chosen, all_recall = coordinate_ascent(questions, baseline, VALUES, reach, K)

    def by_cat(w: FormulaWeights, qs: list[PoolQuestion]) -> dict[str, float]:
        out = {str(c): round(mean_recall([q for q in qs if q.category == c], w, reach, K), 4)
               for c in MAIN_CATEGORIES}
        return out | {"1-4": round(mean_recall(qs, w, reach, K), 4)}

    names = list(VALUES)
    mode_folds = choose_descent({"lead": questions, "hide": without_descent(questions)}, baseline, reach)
    hidden = without_descent(questions)
    report: dict[str, Any] = {  # the JSON written
        "command": f"python -m benchmarks.fit_summaries --data {args.data}",
        "corpora": list(CORPORA), "k": K, "questions": len(questions), "values": VALUES,
        "baseline": {n: getattr(baseline, n) for n in names},
        "folds": [{"held_out": f.held_out, "chosen": {n: getattr(f.chosen, n) for n in names},
                   "train_recall@10": round(f.train_recall, 4), "held_out_recall@10": round(f.held_out_recall, 4),
                   "held_out_baseline_recall@10": round(f.held_out_baseline, 4)} for f in folds],
        "cv_recall@10": round(sum(f.held_out_recall for f in folds) / len(folds), 4),
        "cv_baseline_recall@10": round(sum(f.held_out_baseline for f in folds) / len(folds), 4),
        "chosen_on_all": {n: getattr(chosen, n) for n in names}, "chosen_on_all_recall@10": round(all_recall, 4),
        "by_corpus_and_category_recall@10": {
            corpus: {"baseline": by_cat(baseline, qs), "chosen_on_all": by_cat(chosen, qs)}
            for corpus, qs in per_corpus.items()},
        "descent_by_cv": {
            "folds": mode_folds,
            "cv_recall@10": round(sum(float(f["held_out_recall@10"]) for f in mode_folds) / len(mode_folds), 4),
            "cv_hide_baseline_recall@10": round(sum(float(f["held_out_hide_baseline_recall@10"])
                                                    for f in mode_folds) / len(mode_folds), 4),
            "all_five": {"lead": round(mean_recall(questions, baseline, reach, K), 4),
                         "hide": round(mean_recall(hidden, baseline, reach, K), 4)},
        },
        "collect_seconds": round(collected, 1), "seconds": round(time.monotonic() - started, 1),
        "note": "recall@10 of the evidence turns, mean over questions (categories 1-4); baseline: the default "
                "weights with summary 0 (summaries still lead down and count in nothing else); cv figures: mean "
                "of the five held-out conversations, each scored with the setting fitted on the other four",
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    for f in report["folds"]:
        print(f)
    print(json.dumps(report["descent_by_cv"], indent=1))
    print(f"CV recall@10 {report['cv_recall@10']} (baseline {report['cv_baseline_recall@10']}); chosen on all "
          f"{report['chosen_on_all']} -> {report['chosen_on_all_recall@10']}; written to {out}")


if __name__ == "__main__":
    main()
