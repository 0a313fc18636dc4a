"""What verifying a memory's signature costs on the CPU, without and with the provenance fields, side by side.

    .venv/bin/python -m benchmarks.verify_cost

A search verifies each candidate before ranking it (``RetrievalService._verified``). This times ``Signer.verify``
on memory maps as ``retrieval/candidates`` returns them (times as Neo4j's toString() gives an imported turn's
whole-second time, "2023-05-08T13:56:00Z"): one without
provenance (the ``gm1`` encoding) and one written through a token (``gm2``, writer and trust), interleaved in rounds
so load drifts hit both alike; and prints the cost per search for typical candidate counts. The whole search's
verified vs unverified latency is ``benchmarks/search.py`` (mode ``fused+expansion-unverified``). Writes
``benchmarks/results/verify_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.security.signing import Signer, SigningKey, Verdict

CANDIDATES = (35, 100, 300)
"""Candidate counts a search may verify (the pool grows with k, hops and the channels asked)."""


def memory(i: int, provenance: bool) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": f"m{i:06d}", "namespace": "locomo-conv-26-turns", "kind": "episodic",
        "content": f"Caroline said she went to the LGBTQ support group yesterday and it was powerful ({i}).",
        "status": "active", "confidence": 0.9, "importance": 0.5, "source": "locomo:conv-26",
        "sources": ["locomo:conv-26"], "tags": ["session_1"], "created_at": "2023-05-08T13:56:00Z",
        "valid_from": "2023-05-08T13:56:00Z", "valid_until": None, "expires_at": None,
    }
    if provenance:
        data.update(writer="tok-chat", trust=0.3)
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/verify_cost.json"))
    args = parser.parse_args(argv)
    signer = Signer([SigningKey("bench", secrets.token_bytes(32))])
    maps = {}
    for label, prov in (("gm1 (no provenance)", False), ("gm2 (writer, trust)", True)):
        rows = [memory(i, prov) for i in range(args.memories)]
        for row in rows:
            row["signature"], row["signature_key"] = signer.sign(row)
        maps[label] = rows
    per: dict[str, list[float]] = {label: [] for label in maps}
    for r in range(args.rounds):
        for label in (list(maps) if r % 2 == 0 else list(reversed(maps))):
            started = time.perf_counter()
            ok = sum(signer.verify(row) is Verdict.OK for row in maps[label])
            per[label].append((time.perf_counter() - started) / len(maps[label]) * 1e6)
            assert ok == len(maps[label]), "every untampered memory verifies"
    figures: dict[str, dict[str, Any]] = {
        label: {"median_us_per_memory": round(statistics.median(v), 2), "min_us": round(min(v), 2),
                "per_search_ms": {str(n): round(statistics.median(v) * n / 1000, 3) for n in CANDIDATES}}
        for label, v in per.items()}
    labels = list(figures)
    ratio = round(figures[labels[1]]["median_us_per_memory"] / figures[labels[0]]["median_us_per_memory"], 3)
    for label, f in figures.items():
        print(f"{label:22s} {f['median_us_per_memory']:6.2f} µs/memory (min {f['min_us']:.2f}); per search "
              + ", ".join(f"{n} candidates {ms} ms" for n, ms in f["per_search_ms"].items()))
    print(f"gm2 / gm1: {ratio}")
    report = {"benchmark": "verify_cost", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "command": " ".join([".venv/bin/python -m benchmarks.verify_cost",
                                   *(argv if argv is not None else sys.argv[1:])]),
              "memories": args.memories, "rounds": args.rounds, "figures": figures, "gm2_over_gm1": ratio,
              "goal": "< 1 ms added to search p95", "python": platform.python_version(), "cpus": os.cpu_count(),
              "load_average_at_end": list(os.getloadavg())}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
