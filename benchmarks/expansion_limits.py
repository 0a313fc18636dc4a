"""How far the entity step of the expansion must reach: LoCoMo recall/MRR per (via_limit, via_fanout[, max degree]).

The second step of a hop (seed -> entity or turn -> memory) costs most of a search's database time, and its
cost grows with how many entities walk on (``VIA_LIMIT``) and how many edges each walks (``VIA_FANOUT``). This
runs the LoCoMo evaluation (modes ``expanded`` and ``formula``) once per pair and writes what each gives, with
the stage latencies, so the defaults are chosen from figures (the smallest pair that keeps recall), not guessed.
A third number sets ``VIA_MAX_DEGREE`` (entities and turns with more edges do not walk on), e.g. ``10x10x100``;
without it the default applies.

    .venv/bin/python -m benchmarks.expansion_limits --data ../shared/data/locomo/locomo-dev.json
    .venv/bin/python -m benchmarks.expansion_limits --data ... --pairs 40x25,10x10 --sample conv-26
    .venv/bin/python -m benchmarks.expansion_limits --data ... --pairs 10x10x100,10x10x1000000

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


def pairs(text: str) -> list[tuple[int, int, int]]:
    """``LxF`` or ``LxFxD`` items, comma-separated (D: the default ``VIA_MAX_DEGREE`` when absent)."""
    out = []
    for item in text.split(","):
        parts = [int(x) for x in item.split("x")]
        if len(parts) not in (2, 3):
            raise argparse.ArgumentTypeError(f"{item!r}: want LxF or LxFxD")
        out.append((parts[0], parts[1], parts[2] if len(parts) == 3 else retrieval_service.VIA_MAX_DEGREE))
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings()
    out: dict[str, Any] = {"data": "locomo-dev" if "locomo-dev" in str(args.data) else Path(args.data).name,
                           "samples": args.sample or "all", "modes": ["expanded", "formula"], "runs": []}
    for limit, fanout, max_degree in args.pairs:
        retrieval_service.VIA_LIMIT, retrieval_service.VIA_FANOUT = limit, fanout
        retrieval_service.VIA_MAX_DEGREE = max_degree
        retrieval_service.FRONTIER_LIMIT = args.frontier
        t0 = time.monotonic()
        report = await evaluate(settings, args.data, samples=args.sample, modes=("expanded", "formula"))
        run_out: dict[str, Any] = {"frontier_limit": args.frontier, "via_limit": limit, "via_fanout": fanout,
                                   "via_max_degree": max_degree, "seconds": round(time.monotonic() - t0)}
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
            print(f"frontier {args.frontier} via {limit}x{fanout}x{max_degree} {mode}: "
                  f"all R@5 {main.get('recall@5', 0):.4f} R@10 {main.get('recall@10', 0):.4f} "
                  f"MRR {main.get('mrr', 0):.4f}; multi-hop R@5 "
                  f"{cat1.get('recall@5', 0):.4f}; graph p50 {run_out[mode]['latency_ms'].get('graph')}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--sample", action="append", help="only these sample ids (repeatable)")
    parser.add_argument("--pairs", type=pairs, default=pairs("40x25,20x15,10x10,5x10"),
                        help="via_limit x via_fanout [x via_max_degree] (default 40x25,20x15,10x10,5x10)")
    parser.add_argument("--frontier", type=int, default=retrieval_service.FRONTIER_LIMIT,
                        help=f"seeds that walk (FRONTIER_LIMIT, default {retrieval_service.FRONTIER_LIMIT})")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/expansion_limits.json"))
    args = parser.parse_args()
    report = asyncio.run(run(args))
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
