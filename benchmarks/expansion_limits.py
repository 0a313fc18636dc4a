"""How far the entity step of the expansion must reach: LoCoMo recall/MRR per (via_limit, via_fanout).

The second step of a hop (seed -> entity or turn -> memory) costs most of a search's database time, and its
cost grows with how many entities walk on (``VIA_LIMIT``) and how many edges each walks (``VIA_FANOUT``). This
runs the LoCoMo evaluation (modes ``expanded`` and ``formula``) once per pair and writes what each gives, with
the stage latencies, so the defaults are chosen from figures (the smallest pair that keeps recall), not guessed.

    .venv/bin/python -m benchmarks.expansion_limits --data ../shared/data/locomo/locomo-dev.json
    .venv/bin/python -m benchmarks.expansion_limits --data ... --pairs 40x25,10x10 --sample conv-26

Needs a Neo4j (GRAPHMEM_NEO4J_*); imports the samples like ``graphmem eval locomo`` (idempotent).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import graphmem.retrieval.service as retrieval_service
from graphmem.config import Settings
from graphmem.eval.locomo import evaluate


def pairs(text: str) -> list[tuple[int, int]]:
    return [(int(a), int(b)) for a, b in (p.split("x") for p in text.split(","))]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings()
    out: dict[str, Any] = {"data": "locomo-dev" if "locomo-dev" in str(args.data) else Path(args.data).name,
                           "samples": args.sample or "all", "modes": ["expanded", "formula"], "runs": []}
    for limit, fanout in args.pairs:
        retrieval_service.VIA_LIMIT, retrieval_service.VIA_FANOUT = limit, fanout
        t0 = time.monotonic()
        report = await evaluate(settings, args.data, samples=args.sample, modes=("expanded", "formula"))
        run_out: dict[str, Any] = {"via_limit": limit, "via_fanout": fanout, "seconds": round(time.monotonic() - t0)}
        for mode, result in report["results"].items():
            run_out[mode] = {
                "by_category": result["by_category"],
                "latency_ms": {s: {"p50": round(v["p50"], 2), "p95": round(v["p95"], 2)}
                               for s, v in result["latency_ms"].items()},
            }
        out["runs"].append(run_out)
        for mode in ("expanded", "formula"):
            main = run_out[mode]["by_category"].get("all", {})
            cat1 = run_out[mode]["by_category"].get("1", {})
            print(f"via {limit}x{fanout} {mode}: all R@5 {main.get('recall@5', 0):.4f} R@10 "
                  f"{main.get('recall@10', 0):.4f} MRR {main.get('mrr', 0):.4f}; multi-hop R@5 "
                  f"{cat1.get('recall@5', 0):.4f}; graph p50 {run_out[mode]['latency_ms'].get('graph')}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--sample", action="append", help="only these sample ids (repeatable)")
    parser.add_argument("--pairs", type=pairs, default=pairs("40x25,20x15,10x10,5x10"),
                        help="via_limit x via_fanout pairs (default 40x25,20x15,10x10,5x10)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/expansion_limits.json"))
    args = parser.parse_args()
    report = asyncio.run(run(args))
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
