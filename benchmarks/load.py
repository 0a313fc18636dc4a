"""Overload: N closed-loop clients against TWO API replicas on one Neo4j, 80% searches / 20% writes.

    GRAPHMEM_NEO4J_HOME=$HOME/.cache/graphmem/load-neo4j GRAPHMEM_NEO4J_BOLT_PORT=7697 GRAPHMEM_NEO4J_HTTP_PORT=7484 \\
        .venv/bin/graphmem neo4j start
    GRAPHMEM_NEO4J_URI=bolt://127.0.0.1:7697 .venv/bin/python -m benchmarks.load --seconds 15

Starts two ``graphmem serve`` processes (free ports) on the Neo4j of GRAPHMEM_NEO4J_URI (never wiped: one fresh
namespace per run, wiped at the end), seeds ``--seed-memories`` memories, then:

- the main phase: ``--clients`` httpx async clients (default 200; at most 50 per client process, as one Python event
  loop driving more was the bottleneck itself) for ``--seconds`` (default 30), each sending one
  request after the other to its replica (client i -> replica i mod 2): a search, or one write in five with a
  unique requestId and content. A refused request (OVERLOADED, HTTP 503) is counted, not timed, and its client
  waits ``--backoff`` seconds (default 1, jittered: what Retry-After asks);
- the sweep: ``--steps`` client counts (1, 2, 4, 8, 16, 32, 64, 200) for ``--step-seconds`` each; the saturation
  throughput is the highest admitted requests/s (and per core) whose p95 stays under ``--p95-ms`` (100);
- the check: every write acknowledged in any phase is read back from Neo4j: ``lost_writes`` must be 0.

Prints the figures and writes benchmarks/results/load.json (with the load average: the box is shared).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import random
import tempfile
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from benchmarks.load_support import (
    SEARCH,
    WRITE,
    Replicas,
    Tally,
    cores,
    first_code,
    load_average,
    question,
    replicas,
    sentence,
)
from graphmem.config import Settings
from graphmem.store import Store

RESULTS = Path(__file__).parent / "results"
WRITE_SHARE = 0.2
CLIENTS_PER_PROCESS = 50


async def one(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    response = await client.post(f"{url}/graphql", json=body)
    try:
        data: dict[str, Any] = response.json()
    except ValueError:
        data = {"errors": [{"extensions": {"code": f"HTTP_{response.status_code}"}}]}
    return response.status_code, data


async def client_loop(n: int, client: httpx.AsyncClient, api: Replicas, tally: Tally, stop_at: float,
                      counter: list[int], backoff_s: float, rng: random.Random) -> None:
    url = api.urls[n % len(api.urls)]
    while time.monotonic() < stop_at:
        counter[0] += 1
        i = counter[0]
        if rng.random() < WRITE_SHARE:
            kind = "write"
            memory = {"namespace": api.namespace, "kind": "SEMANTIC", "content": f"{sentence(i)} ({uuid.uuid4().hex})"}
            body = {"query": WRITE, "variables": {"memories": [memory], "requestId": uuid.uuid4().hex}}
        else:
            kind = "search"
            body = {"query": SEARCH, "variables": {"q": question(i), "ns": [api.namespace]}}
        started = time.perf_counter()
        try:
            status, data = await one(client, url, body)
        except httpx.HTTPError as exc:
            tally.record(kind, 0.0, f"HTTP_{type(exc).__name__}", [])
            continue
        ms = (time.perf_counter() - started) * 1000
        code = first_code(data)
        if status == 503 and code is None:
            code = "HTTP_503"
        written = []
        if kind == "write" and code is None:
            written = [item["id"] for item in data["data"]["writeMemories"]["items"]]
        tally.record(kind, ms, code, written)
        if code == "OVERLOADED":
            await asyncio.sleep(backoff_s * rng.uniform(0.5, 1.5))


async def phase_here(api: Replicas, clients: int, seconds: float, backoff_s: float, seed: int,
                     offset: int = 0) -> Tally:
    """``clients`` closed-loop clients on this process's event loop."""
    tally = Tally(clients)
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    headers = {"Authorization": f"Bearer {api.token}"}
    async with httpx.AsyncClient(headers=headers, timeout=60, limits=limits) as client:
        rng = random.Random(seed * 1000 + offset)
        counter = [seed * 1_000_000 + offset * 100_000]
        started = time.monotonic()
        stop_at = started + seconds
        await asyncio.gather(*(client_loop(n, client, api, tally, stop_at, counter, backoff_s,
                                           random.Random(rng.random())) for n in range(clients)))
        tally.seconds = time.monotonic() - started
    return tally


def _phase_process(api: Replicas, clients: int, seconds: float, backoff_s: float, seed: int, offset: int) -> Tally:
    return asyncio.run(phase_here(api, clients, seconds, backoff_s, seed, offset))


async def phase(api: Replicas, clients: int, seconds: float, backoff_s: float, seed: int,
                per_process: int = CLIENTS_PER_PROCESS) -> Tally:
    """``clients`` clients, at most ``per_process`` on one event loop: one Python loop driving 200 connections was
    itself the bottleneck (admitted p50 1.6 s at 200 clients, 105 ms with the same clients over 4 processes)."""
    processes = max(1, math.ceil(clients / per_process))
    if processes == 1:
        return await phase_here(api, clients, seconds, backoff_s, seed)
    shares = [clients // processes + (1 if i < clients % processes else 0) for i in range(processes)]
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = await asyncio.gather(*(loop.run_in_executor(pool, _phase_process, api, share, seconds, backoff_s,
                                                            seed, i) for i, share in enumerate(shares)))
    return Tally.merged(clients, parts)


async def seed_memories(api: Replicas, count: int) -> list[str]:
    headers = {"Authorization": f"Bearer {api.token}"}
    ids: list[str] = []
    async with httpx.AsyncClient(headers=headers, timeout=120) as client:
        for start in range(0, count, 50):
            memories = [{"namespace": api.namespace, "kind": "SEMANTIC", "content": sentence(i)}
                        for i in range(start, min(start + 50, count))]
            status, data = await one(client, api.urls[0], {"query": WRITE, "variables": {"memories": memories}})
            if status != 200 or data.get("errors"):
                raise RuntimeError(f"seeding failed: {status} {json.dumps(data)[:500]}")
            ids.extend(item["id"] for item in data["data"]["writeMemories"]["items"])
    return ids


async def lost_writes(settings: Settings, namespace: str, ids: list[str]) -> list[str]:
    """The acknowledged ids that are not in Neo4j (read directly, not through the API)."""
    async with Store.connect(settings) as store:
        records, _, _ = await store.driver.execute_query(
            "UNWIND $ids AS id OPTIONAL MATCH (m:Memory {id: id, namespace: $ns}) "
            "WITH id, m WHERE m IS NULL RETURN collect(id) AS missing",
            {"ids": ids, "ns": namespace}, database_=store.database)
        missing: list[str] = records[0]["missing"]
        await store.wipe_namespace(namespace)
    return missing


def saturation(sweep: list[dict[str, Any]], p95_ms: float) -> dict[str, Any] | None:
    fitting = [step for step in sweep if step["p95_ms"] is not None and step["p95_ms"] < p95_ms]
    return max(fitting, key=lambda step: step["throughput_rps"]) if fitting else None


def show(label: str, s: dict[str, Any]) -> None:
    print(f"{label:>14} clients={s['clients']:>4} {s['throughput_rps']:>7.1f} req/s "
          f"({s['throughput_rps_per_core']:.1f}/core)  p50={s['p50_ms']} p95={s['p95_ms']} p99={s['p99_ms']} ms  "
          f"refused={s['refused_share']:.1%}  errors={s['errors']}")


async def main(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings()
    namespace = f"load-{uuid.uuid4().hex[:10]}"
    n_cores = cores()
    with replicas(args.replicas, settings.neo4j_uri, namespace, args.log_dir) as api:
        seeded = await seed_memories(api, args.seed_memories)
        await phase(api, 8, args.warmup, args.backoff, seed=1)  # warm the JITs and caches, not counted
        main_phase = await phase(api, args.clients, args.seconds, args.backoff, seed=2)
        main_summary = main_phase.summary(n_cores)
        show("main", main_summary)
        sweep: list[dict[str, Any]] = []
        acknowledged = list(main_phase.acknowledged)
        for step, clients in enumerate(args.steps):
            tally = await phase(api, clients, args.step_seconds, args.backoff, seed=3 + step)
            sweep.append(tally.summary(n_cores))
            acknowledged.extend(tally.acknowledged)
            show("sweep", sweep[-1])
    missing = await lost_writes(settings, namespace, [*seeded, *acknowledged])
    best = saturation(sweep, args.p95_ms)
    result = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"), "load_average": load_average(), "cores": n_cores,
        "replicas": args.replicas, "admission_limit_per_replica": api.limit,
        "queue_per_replica": settings.api_max_queued or api.limit, "queue_wait_s": settings.api_queue_wait_s,
        "write_share": WRITE_SHARE, "seed_memories": len(seeded), "backoff_s": args.backoff,
        "main": main_summary, "sweep": sweep, "p95_target_ms": args.p95_ms,
        "saturation": None if best is None else {
            "clients": best["clients"], "throughput_rps": best["throughput_rps"],
            "throughput_rps_per_core": best["throughput_rps_per_core"], "p95_ms": best["p95_ms"]},
        "acknowledged_writes": len(seeded) + len(acknowledged), "lost_writes": len(missing),
        "lost_write_ids": missing[:20],
    }
    sat = result["saturation"]
    print(f"saturation (p95 < {args.p95_ms:.0f} ms): "
          + ("none" if sat is None else f"{sat['throughput_rps']} req/s = {sat['throughput_rps_per_core']} req/s "
             f"per core at {sat['clients']} clients (p95 {sat['p95_ms']} ms)"))
    print(f"acknowledged writes {result['acknowledged_writes']}, lost {len(missing)}; load average "
          f"{result['load_average']}")
    return result


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--steps", type=lambda text: [int(x) for x in text.split(",")],
                        default=[1, 2, 4, 8, 16, 32, 64, 200])
    parser.add_argument("--step-seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--seed-memories", type=int, default=500)
    parser.add_argument("--backoff", type=float, default=1.0, help="pause of a client after OVERLOADED (s)")
    parser.add_argument("--p95-ms", type=float, default=100.0)
    parser.add_argument("--log-dir", type=Path, default=Path(tempfile.gettempdir()) / "graphmem-load")
    parser.add_argument("--out", type=Path, default=RESULTS / "load.json")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    figures = asyncio.run(main(arguments))
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {arguments.out}")
