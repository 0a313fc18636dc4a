"""Ablation on the LoCoMo dev split: each graph construction and ranking component of the default search off in
turn, recall@5/10/20 and MRR per category, latency per stage.

    .venv/bin/python benchmarks/locomo_ablation.py --data ../shared/data/locomo/locomo-dev.json [--corpus turns]

Needs a running Neo4j (GRAPHMEM_NEO4J_URI). A construction variant imports into its own namespaces
(``locomo-<sample>[-turns]-<variant>``); a ranking variant searches the default graph with one formula weight at
0 (or no expansion, or personalised PageRank expansion: ``ppr-expansion``, the default alpha; alpha chosen by
cross-validation and latency: ``benchmarks/locomo_ppr.py``). Every run goes through
``graphmem.eval.locomo.evaluate``, access recording on, one pass.
Writes ``benchmarks/results/locomo_ablation[-turns].json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.eval.locomo import MODES, Mode, evaluate
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.types import ExpansionMode, RerankMode, SearchOptions

CONSTRUCTION: dict[str, dict[str, object]] = {
    "no-follows": {"graph_follows": False},
    "no-entities": {"graph_entities": False},
    "no-similar": {"graph_similar_k": 0},
    "no-construction": {"graph_follows": False, "graph_entities": False, "graph_similar_k": 0},
}
"""Settings of each construction variant (the default graph: every part on)."""
RANKING: dict[str, dict[str, float | bool]] = {
    "no-fused-term": {"fused": 0.0}, "no-text-term": {"text": 0.0}, "no-length-term": {"length": 0.0},
    "no-graph-term": {"graph": 0.0}, "no-time-term": {"time": 0.0},
    "no-entity-term": {"entity": 0.0}, "no-follows-context": {"before": 0.0, "after": 0.0},
    "no-task-context": {"task": 0.0}, "no-provenance-fold": {"fold": False},
    "no-text-or-length-term": {"text": 0.0, "length": 0.0}, "no-question-term": {"question": 0.0},
    "no-speaker-term": {"speaker": 0.0}, "no-answer-term": {"answer": 0.0},
    "formula-before-this-work": {"fused": 0.0, "text": 0.0, "length": 0.0, "question": 0.0, "speaker": 0.0,
                                 "answer": 0.0,
                                 "graph": 0.0, "time": 0.0, "entity": 0.0, "before": 0.0, "after": 0.0, "task": 0.0,
                                 "fold": False, "frequency": 0.1},
}
"""Formula weights of each ranking variant, the rest at their defaults."""
NO_EXPANSION = "formula-hops0"
PPR = "formula-ppr"


@dataclass(frozen=True)
class PprMode(Mode):
    """A mode whose expansion is personalised PageRank (``ExpansionMode.PPR``)."""

    def options(self, namespace: str, k: int) -> SearchOptions:
        return super().options(namespace, k).model_copy(update={"expansion_mode": ExpansionMode.PPR})


def summary(report: dict[str, Any], mode: str) -> dict[str, Any]:
    result = report["results"][mode]
    lat = result["latency_ms"]
    return {"by_category": result["by_category"],
            "latency_ms": {s: {"p50": lat[s]["p50"], "p95": lat[s]["p95"]} for s in lat}}


async def run(data: str, corpus: str) -> dict[str, Any]:
    base = Settings()
    out: dict[str, Any] = {}

    async def one(name: str, settings: Settings, modes: tuple[str, ...], *, weights: FormulaWeights | None = None,
                  tag: str | None = None) -> None:
        started = time.monotonic()
        report = await evaluate(settings, data, modes=modes, corpus=corpus, weights=weights, graph_tag=tag)
        for mode in modes:
            key = name if len(modes) == 1 else f"{name}:{mode}"
            out[key] = summary(report, mode)
            all_ = out[key]["by_category"]["all"]
            print(f"{key:32s} R@5 {all_['recall@5']:.3f} R@10 {all_['recall@10']:.3f} R@20 {all_['recall@20']:.3f} "
                  f"MRR {all_['mrr']:.3f}  ({time.monotonic() - started:.0f}s)", flush=True)

    await one("default", base, ("vector", "fused", "expanded", "formula"))
    MODES[NO_EXPANSION] = Mode(MODES["formula"].channels, 0, RerankMode.FORMULA)
    await one("no-expansion", base, (NO_EXPANSION,))
    MODES[PPR] = PprMode(MODES["formula"].channels, 1, RerankMode.FORMULA)
    await one("ppr-expansion", base, (PPR,))
    defaults = FormulaWeights()
    for name, change in RANKING.items():
        await one(name, base, ("formula",), weights=defaults.model_copy(update=change))
    for name, built in CONSTRUCTION.items():
        await one(name, base.model_copy(update=built), ("formula",), tag=name)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--corpus", default="turns+facts", choices=["turns+facts", "turns"])
    args = parser.parse_args()
    started = time.monotonic()
    variants = asyncio.run(run(args.data, args.corpus))
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"),
              "command": f"python benchmarks/locomo_ablation.py --data {args.data} --corpus {args.corpus}",
              "corpus": args.corpus, "weights": FormulaWeights().model_dump(), "variants": variants,
              "seconds": round(time.monotonic() - started, 1)}
    suffix = "" if args.corpus == "turns+facts" else "-turns"
    path = Path(f"benchmarks/results/locomo_ablation{suffix}.json")
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {path}")


if __name__ == "__main__":
    main()
