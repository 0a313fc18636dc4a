"""graphiti-core in the search benchmark: its run (``graphiti_peer/load_and_search.py`` in graphiti's own venv, on
the same server, facts and measured queries), whether a size gets one, and its ratios to graphmem."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.search_data import Fact, Query, log
from benchmarks.search_report import GOAL_SPEEDUP
from benchmarks.search_timing import MODES
from graphmem.config import Settings

GRAPHITI_SCRIPT = Path(__file__).resolve().parent / "graphiti_peer" / "load_and_search.py"


def run_graphiti(args: argparse.Namespace, settings: Settings, facts: Sequence[Fact], queries: Sequence[Query],
                 group_id: str, workdir: Path, onnx_file: Path | None) -> dict[str, Any]:
    """graphiti_peer/load_and_search.py in graphiti's venv, on the same server, facts and measured queries."""
    facts_file = workdir / f"{group_id}-facts.jsonl"
    queries_file = workdir / f"{group_id}-queries.jsonl"
    out_file = workdir / f"{group_id}.json"
    facts_file.write_text("".join(json.dumps({"source": f.source, "relation": f.relation, "target": f.target,
                                              "fact": f.text}) + "\n" for f in facts), encoding="utf-8")
    queries_file.write_text("".join(json.dumps({"query": q.text, "fact": q.fact}) + "\n" for q in queries),
                            encoding="utf-8")
    cmd = [str(args.graphiti_python), str(GRAPHITI_SCRIPT), str(facts_file), "--uri", settings.neo4j_uri,
           "--user", settings.neo4j_user, "--database", settings.neo4j_database, "--group-id", group_id, "--reset",
           "--queries-file", str(queries_file), "--warmup", str(args.warmup), "--num-results", str(args.k),
           "--torch-threads", str(args.torch_threads), "--out", str(out_file)]
    if onnx_file is not None:  # the same runtime and export as graphmem's embedder
        cmd += ["--onnx", str(onnx_file)]
    env = {**os.environ, "NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
           "GRAPHITI_TELEMETRY_ENABLED": "false", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    log(f"graphiti: {shlex.join(cmd[:3])} ... --group-id {group_id} ({len(facts)} facts, {len(queries)} queries)")
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.graphiti_timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return {"run": False, "reason": f"timed out after {args.graphiti_timeout} s"}
    wall = time.perf_counter() - started
    if proc.returncode != 0 or not out_file.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-25:])
        return {"run": False, "reason": f"exit {proc.returncode}", "log_tail": tail}
    result: dict[str, Any] = json.loads(out_file.read_text(encoding="utf-8"))
    result["run"] = True
    result["wall_s"] = round(wall, 1)
    result["command"] = shlex.join([*cmd[:2], "<facts.jsonl>", *cmd[3:]])
    return result


def ratios(graphiti: dict[str, Any], graphmem: dict[str, Any]) -> dict[str, Any]:
    g = graphiti["search"]["latency"]
    out: dict[str, Any] = {}
    for mode in MODES:
        m = graphmem[mode]["client_e2e"]
        p50, p95 = g["p50_ms"] / m["p50_ms"], g["p95_ms"] / m["p95_ms"]
        out[mode] = {"graphiti_p50_ms": g["p50_ms"], "graphmem_p50_ms": m["p50_ms"], "p50_ratio": round(p50, 2),
                     "graphiti_p95_ms": g["p95_ms"], "graphmem_p95_ms": m["p95_ms"], "p95_ratio": round(p95, 2),
                     "goal_20x_met": p50 >= GOAL_SPEEDUP and p95 >= GOAL_SPEEDUP}
    return out


def graphiti_skip(size: int, synthetic: bool, graphiti: dict[str, Any], budget_s: float) -> dict[str, Any] | None:
    """None: run graphiti at ``size``; else why not, with what the last run predicts (load and search both grow
    linearly: graphiti's loader embeds every fact itself, and its search scans every RELATES_TO edge in the
    database by brute-force cosine, with no vector index)."""
    ran = [(int(r["load"]["facts"]), r) for r in graphiti.values() if r.get("run") and "load" in r]
    if not ran:
        return None if not synthetic else {"run": False, "reason": "combinations of facts: graphiti needs triples"}
    n, r = max(ran, key=lambda x: x[0])
    scale = size / n
    estimate = {"estimate_from": f"the {n}-fact run", "estimated_load_s": round(r["load"]["total_s"] * scale),
                "estimated_search_p50_ms": round(r["search"]["latency"]["p50_ms"] * scale),
                "estimate_note": "linear in the number of facts (load: embedding + write; search: the cosine scan)"}
    reasons = []
    if synthetic:
        reasons.append("the dataset holds combinations of facts (latency only), not graphiti triples")
    if estimate["estimated_load_s"] > budget_s:
        reasons.append(f"its load would take ~{estimate['estimated_load_s']} s here (budget {budget_s:.0f} s), "
                       f"then ~{estimate['estimated_search_p50_ms']} ms per search")
    return {"run": False, "reason": "; ".join(reasons), **estimate} if reasons else None
