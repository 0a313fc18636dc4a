"""`search` over HTTP: p50/p95 latency with 1 and with 16 concurrent clients against a running graphmem serve.

    .venv/bin/python -m benchmarks.http_search --url http://127.0.0.1:8000/graphql --token gm_... \\
        --data ../shared/data/locomo/locomo-dev.json --sample conv-26 --queries 200

Questions come from the LoCoMo file (each question once per client count, so the result cache never answers).
Prints a table and writes benchmarks/results/http_search.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

QUERY = """query Search($q: String!, $ns: [String!]) {
  search(query: $q, namespaces: $ns, k: 10, hops: 1) { cached results { score memory { id } } }
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def run(url: str, token: str, questions: list[str], namespace: str, clients: int) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    cached = 0
    queue: asyncio.Queue[str] = asyncio.Queue()
    for q in questions:
        queue.put_nowait(q)

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal errors, cached
        while not queue.empty():
            q = queue.get_nowait()
            started = time.perf_counter()
            response = await client.post(url, json={"query": QUERY, "variables": {"q": q, "ns": [namespace]}})
            latencies.append((time.perf_counter() - started) * 1000)
            body = response.json()
            if response.status_code != 200 or body.get("errors"):
                errors += 1
            elif body["data"]["search"]["cached"]:
                cached += 1

    headers = {"authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(headers=headers, timeout=60) as client:
        started = time.perf_counter()
        await asyncio.gather(*(worker(client) for _ in range(clients)))
        wall = time.perf_counter() - started
    return {"clients": clients, "requests": len(latencies), "errors": errors, "cached": cached,
            "p50_ms": round(statistics.median(latencies), 1), "p95_ms": round(percentile(latencies, 95), 1),
            "throughput_rps": round(len(latencies) / wall, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000/graphql")
    parser.add_argument("--token", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--sample", default="conv-26")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--out", default="benchmarks/results/http_search.json")
    args = parser.parse_args()
    samples = json.loads(Path(args.data).read_text())
    sample = next(s for s in samples if s["sample_id"] == args.sample)
    questions = [q["question"] for q in sample["qa"]]
    namespace = f"locomo-{args.sample}"
    need = args.warmup + 2 * args.queries
    pool = [f"{q} (variant {i // len(questions)})" if i >= len(questions) else q
            for i, q in enumerate(questions * (need // len(questions) + 1))][:need]
    load_start = os.getloadavg()
    asyncio.run(run(args.url, args.token, pool[: args.warmup], namespace, 1))
    rows = []
    for clients, chunk in ((1, pool[args.warmup: args.warmup + args.queries]),
                           (16, pool[args.warmup + args.queries: need])):
        rows.append(asyncio.run(run(args.url, args.token, chunk, namespace, clients)))
    report = {"benchmark": "http_search", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "namespace": namespace, "queries_per_run": args.queries, "results": rows,
              "load_average_start": load_start, "load_average_end": os.getloadavg()}
    print(f"{'clients':>7} {'requests':>8} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>7} {'errors':>6}")
    for r in rows:
        print(f"{r['clients']:>7} {r['requests']:>8} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['throughput_rps']:>7} "
              f"{r['errors']:>6}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
