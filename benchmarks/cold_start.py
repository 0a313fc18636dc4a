"""The first searches after Neo4j starts: how many stall on planning the search statements, three ways.

    .venv/bin/python -m benchmarks.cold_start --data ../shared/data/locomo/locomo-dev.json
    .venv/bin/python -m benchmarks.cold_start --data ../shared/data/locomo/locomo-dev.json --expansion ppr \
        --variants top_level,vary --stall-ms 150 --out benchmarks/results/cold_start_ppr.json

Needs the project's local Neo4j (``graphmem neo4j start``): each variant STOPS it and starts it again, so that the
JVM and its plan cache are fresh, then asks the first ``--per-conversation`` questions of every LoCoMo dev
conversation (imported first when missing, as ``graphmem eval locomo`` does) through ``RetrievalService.search``,
one after the other, timing each. Variants, on the same data and questions, in one run:

- ``top_level``: every statement with every parameter top-level (the code before ``search_params.VARYING`` and
  ``vary.in_map``): Neo4j keys a cached plan on each string's and list's size bucket, so new shapes of question
  plan it again;
- ``vary``: the varying parameters in one map (the shipped statements);
- ``vary+prepare``: the same after ``RetrievalService.prepare`` (what ``graphmem serve`` does at start-up).

Reports per variant: searches over ``--stall-ms`` (their time since the first search, and duration), p50 / p95 /
max, the plans the searches (and ``prepare``) left in Neo4j's query cache (``db.clearQueryCaches``, cleared
first once the service is open), and the reads that failed signature verification (a corpus imported under another
key: its results are hidden after the statement ran; run with the key it was imported under, or with
``GRAPHMEM_SIGNING_DISABLED=true``). ``--expansion ppr`` asks in personalised PageRank mode, which runs
statement by statement (seeds per channel, each walk step, the candidates), none of which ``prepare`` plans. Writes
``benchmarks/results/cold_start.json`` (or ``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import time
from pathlib import Path
from typing import Any

from graphmem.config import Settings
from graphmem.eval.corpus import corpus_namespace, corpus_plan
from graphmem.eval.locomo import ensure_imported, eval_namespace, prepare_questions
from graphmem.importers.locomo import load_locomo
from graphmem.neo4j_local import LocalNeo4j
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.types import ExpansionMode
from graphmem.service.factory import open_service
from graphmem.store.admin import wait_ready
from graphmem.store.store import Store

VARIANTS = ("top_level", "vary", "vary+prepare")


class TopLevel(Store):
    """The store running every statement as before ``VARYING`` and ``vary.in_map``: every parameter top-level (the
    statement's ``$vary.x`` read as ``$x``, the map's fields passed one by one)."""

    def __init__(self, driver: Any, settings: Settings) -> None:
        super().__init__(driver, settings)
        loader = self.cypher
        self.cypher = lambda name: re.sub(r"\$vary\.", "$", loader(name))  # type: ignore[assignment]

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        return await super().read(name, **flat(params))

    async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
        return await super().read_row(name, **flat(params))


def flat(params: dict[str, Any]) -> dict[str, Any]:
    return {**{k: v for k, v in params.items() if k != "vary"}, **params.get("vary", {})}


def restart(settings: Settings) -> float:
    """Stop the local Neo4j and start it again; seconds until Bolt answers."""
    server = LocalNeo4j(settings)
    server.stop()
    started = time.monotonic()
    server.start(ready=lambda: wait_ready(settings, uri=server.bolt_uri))
    return time.monotonic() - started


async def cleared(store: Store) -> int:
    async with store.driver.session(database=store.database) as session:
        result = await session.run("CALL db.clearQueryCaches()")
        (row,) = await result.data()
    found = re.search(r"\d+", row["value"])
    return int(found.group()) if found else 0


async def questions(settings: Settings, data: str, per: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    async with open_service(settings) as service:
        for sample in load_locomo(data):
            namespace = corpus_namespace(eval_namespace(sample.sample_id), "turns+facts")
            print((await ensure_imported(service, corpus_plan(sample, namespace, "turns+facts"),
                                         reimport=False))["line"], flush=True)
            out += [(namespace, q.text) for q in prepare_questions(sample)][:per]
    return out


async def run(settings: Settings, variant: str, asked: list[tuple[str, str]], stall_ms: float,
              expansion: ExpansionMode) -> dict[str, Any]:
    async with open_service(settings) as service:
        await cleared(service.store)  # what start-up planned (the schema's statements): not the searches'
        store = service.store
        if variant == "top_level":
            store = TopLevel(service.store.driver, settings)
        retrieval = RetrievalService(store, service.embedder, settings)
        prepared_ms = None
        if variant == "vary+prepare":
            started = time.monotonic()
            await retrieval.prepare()
            prepared_ms = round((time.monotonic() - started) * 1000, 1)
        first = time.monotonic()
        times: list[float] = []
        stalls: list[dict[str, float]] = []
        for namespace, text in asked:
            started = time.monotonic()
            await retrieval.search(text, SearchOptions(namespaces=(namespace,), k=10, expansion_mode=expansion))
            ms = (time.monotonic() - started) * 1000
            times.append(ms)
            if ms > stall_ms:
                stalls.append({"at_s": round(started - first, 1), "ms": round(ms)})
        plans = await cleared(service.store)
        failures = service.store.integrity.failures
    ordered = sorted(times)
    return {"searches": len(times), "stalls": len(stalls), "stall_ms_total": round(sum(s["ms"] for s in stalls)),
            "p50_ms": round(ordered[len(ordered) // 2], 1), "p95_ms": round(ordered[int(len(ordered) * 0.95)], 1),
            "max_ms": round(ordered[-1], 1), "plans_cached": plans, "prepare_ms": prepared_ms,
            "integrity_failures": failures,
            "stall_list": stalls, "seconds": round(time.monotonic() - first, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--per-conversation", type=int, default=60)
    parser.add_argument("--stall-ms", type=float, default=300.0)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--expansion", choices=[m.value for m in ExpansionMode], default=ExpansionMode.SPREADING.value,
                        help="ppr: personalised PageRank, the stepwise path (statement by statement)")
    parser.add_argument("--out", default="benchmarks/results/cold_start.json")
    args = parser.parse_args()
    settings = Settings()
    asked = asyncio.run(questions(settings, args.data, args.per_conversation))
    report: dict[str, Any] = {
        "benchmark": "cold_start", "command": f"python -m benchmarks.cold_start --data {args.data} "
                                              f"--per-conversation {args.per_conversation} "
                                              f"--expansion {args.expansion} --stall-ms {args.stall_ms:g} "
                                              f"--variants {args.variants}",
        "platform": platform.platform(), "questions": len(asked), "stall_ms": args.stall_ms,
        "expansion": args.expansion, "variants": {}}
    for variant in args.variants.split(","):
        report["variants"][variant] = {"restart_s": round(restart(settings), 1)}
        report["variants"][variant] |= asyncio.run(run(settings, variant, asked, args.stall_ms,
                                                              ExpansionMode(args.expansion)))
        v = report["variants"][variant]
        print(f"{variant:>13}: {v['stalls']} searches over {args.stall_ms:.0f} ms ({v['stall_ms_total']} ms in all), "
              f"p50 / p95 / max {v['p50_ms']} / {v['p95_ms']} / {v['max_ms']} ms, {v['plans_cached']} plans "
              f"cached, prepare {v['prepare_ms']} ms", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out}")


if __name__ == "__main__":
    main()
