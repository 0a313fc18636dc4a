"""What task summaries add to retrieval: the LoCoMo dev split with and without LoCoMo's session summaries, through
``graphmem eval locomo``'s code (access recording on, one pass), per question category.

    .venv/bin/python -m benchmarks.locomo_summaries --data ../shared/data/locomo/locomo-dev.json

Needs a running Neo4j (``graphmem neo4j start``). Each corpus pair (``turns`` / ``turns+summaries``,
``turns+facts`` / ``turns+facts+summaries``) is evaluated in modes ``vector`` and ``formula`` (the default search:
summaries lead down to their tasks' turns and are not returned), and the summary corpora also in ``no-descent``
(the summaries are there, lead nowhere and are not returned). Writes ``benchmarks/results/locomo_summaries.json``.
No weight is tuned here: the descent's bounds are set (``retrieval.descend``) and the summary weight of the context
stage was fitted by cross-validation (``benchmarks/fit_summaries.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.eval.locomo import evaluate

PAIRS = (("turns", "turns+summaries"), ("turns+facts", "turns+facts+summaries"))
KEYS = ("recall@5", "recall@10", "recall@20", "mrr")


def figures(report: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, result in report["results"].items():
        cats = result["by_category"]
        latency = result["latency_ms"].get("total", {})
        out[mode] = {"by_category": {c: {k: round(v[k], 4) for k in KEYS} | {"n": v["n"]} for c, v in cats.items()},
                     "total_ms": {"p50": round(latency.get("p50", 0.0), 1), "p95": round(latency.get("p95", 0.0), 1)}}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", default="benchmarks/results/locomo_summaries.json")
    args = parser.parse_args()
    settings = Settings()
    started = time.monotonic()
    corpora: dict[str, Any] = {}
    for plain, with_summaries in PAIRS:
        for corpus in (plain, with_summaries):
            modes = ["vector", "formula"] + (["no-descent"] if corpus == with_summaries else [])
            report = asyncio.run(evaluate(settings, args.data, modes=modes, corpus=corpus, note=print))
            corpora[corpus] = figures(report)
            row = corpora[corpus]["formula"]["by_category"]
            print(f"{corpus}: formula R@10 all {row['all']['recall@10']} multi-hop {row['1']['recall@10']}",
                  flush=True)
    deltas = {with_summaries: {c: round(corpora[with_summaries]["formula"]["by_category"][c]["recall@10"]
                                        - corpora[plain]["formula"]["by_category"][c]["recall@10"], 4)
                               for c in ("1", "2", "3", "4", "all")}
              for plain, with_summaries in PAIRS}
    report = {"command": f"python -m benchmarks.locomo_summaries --data {args.data}", "corpora": corpora,
              "formula_recall@10_gain_from_summaries": deltas, "seconds": round(time.monotonic() - started, 1),
              "note": "categories 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop; 'all' is 1-4. A summary "
                      "reaches no evidence turn itself (cypher/eval/memory_evidence), so a gain is turns it led to."}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(deltas, indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
