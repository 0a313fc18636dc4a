"""graphiti-core peer benchmark: load facts through graphiti's own write path (no LLM), then time its search.

Runs in its own venv (graphiti-core is NOT a graphmem dependency); see README.md beside this file:

    GRAPHITI_TELEMETRY_ENABLED=false .graphiti-venv/bin/python benchmarks/graphiti_peer/load_and_search.py \\
        facts-1k.jsonl --uri bolt://127.0.0.1:7699 --password peerpass123 --group-id peer-1k --reset \\
        --queries 200 --warmup 20 --out graphiti-1k.json

Facts: JSONL, one ``{"source", "relation", "target", "fact"}`` object a line.

Load: entity names are deduplicated exactly (one ``EntityNode`` per distinct name in the group), names and
facts are embedded up front with the local sentence-transformers model (batched), and the ``EntityNode`` /
``EntityEdge`` objects are written with ``graphiti_core.utils.bulk_utils.add_nodes_and_edges_bulk``, the same
write call ``Graphiti.add_episode`` / ``add_triplet`` make after their LLM steps. No LLM is configured: the
client handed to ``Graphiti`` raises on any call, and so does the cross-encoder.

Search: ``Graphiti.search(query, group_ids=[group], num_results=k)`` (recipe ``EDGE_HYBRID_SEARCH_RRF``: edge BM25
+ edge cosine, RRF; no LLM, no cross-encoder), or ``Graphiti.search_`` with another recipe via ``--recipe``.
Queries are sequential, timed after a warm-up; the query embedding and every Cypher round trip are timed too.

Queries: ``--queries-file`` (JSONL ``{"query": ..., "fact": optional expected fact}``), else ``--queries M``
generated from M sampled facts as ``"<source> <relation in words>"`` with that fact as the expected hit.
"""

from __future__ import annotations

import os

# Before graphiti_core is imported: it reads these at import time.
os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import argparse
import asyncio
import contextlib
import importlib.metadata
import json
import logging
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from graphiti_core import Graphiti
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.search.search_utils import DEFAULT_MIN_SCORE

# The modules beside this script, by their bare names (a script's folder is sys.path[0]): peer_clients (what graphiti
# is handed instead of an LLM, the embedder, the Cypher recorder), peer_data (facts, graphiti objects, the load, the
# queries), peer_search (one search, latency summaries).
from peer_clients import (
    DEFAULT_MODEL_PACKAGE,
    CypherRecorder,
    NoCrossEncoder,
    NoLLMClient,
    SentenceTransformerEmbedder,
    default_model_dir,
)
from peer_data import build_objects, load, make_queries, read_jsonl, reset_group
from peer_search import run_search, search_config, summary_ms


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    facts = read_jsonl(args.facts)
    if args.limit:
        facts = facts[: args.limit]
    model_dir = args.model or default_model_dir()
    t0 = time.perf_counter()
    embedder = SentenceTransformerEmbedder(model_dir, onnx=args.onnx, threads=max(args.torch_threads, 1))
    model_load_s = time.perf_counter() - t0

    driver = Neo4jDriver(args.uri, args.user, args.password, database=args.database)
    graphiti = Graphiti(
        graph_driver=driver, llm_client=NoLLMClient(), embedder=embedder, cross_encoder=NoCrossEncoder()
    )
    result: dict[str, Any] = {
        "system": "graphiti-core",
        "graphiti_core_version": importlib.metadata.version("graphiti-core"),
        "neo4j_driver_version": importlib.metadata.version("neo4j"),
        "python": platform.python_version(),
        "cpus": len(os.sched_getaffinity(0)),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "model_dir": str(model_dir),
        "embedding_dim": embedder.dim,
        "torch_threads": args.torch_threads or "torch default",
        "embedding_runtime": "onnx" if args.onnx else "torch",
        "model_load_s": round(model_load_s, 3),
        "facts_file": str(args.facts),
        "group_id": args.group_id,
    }
    try:
        records, _, _ = await driver.execute_query(
            "CALL dbms.components() YIELD name, versions, edition RETURN versions[0] AS v, edition AS e"
        )
        result["neo4j_server"] = f"{records[0]['v']} {records[0]['e']}"

        t0 = time.perf_counter()
        await graphiti.build_indices_and_constraints()
        await driver.execute_query("CALL db.awaitIndexes(300)")
        result["build_indices_s"] = round(time.perf_counter() - t0, 3)

        if not args.skip_load:
            if args.reset:
                t0 = time.perf_counter()
                deleted = await reset_group(driver, args.group_id)
                result["reset"] = {"deleted_nodes": deleted, "seconds": round(time.perf_counter() - t0, 3)}
            nodes, edges, embed_s = build_objects(facts, args.group_id, embedder)
            write_s, batches = await load(graphiti, nodes, edges, args.batch_size)
            result["load"] = {
                "facts": len(edges),
                "entities": len(nodes),
                "batch_size": args.batch_size,
                "batches": batches,
                "embed_s": round(embed_s, 3),
                "write_s": round(write_s, 3),
                "total_s": round(embed_s + write_s, 3),
                "write_facts_per_s": round(len(edges) / write_s, 1),
                "total_facts_per_s": round(len(edges) / (embed_s + write_s), 1),
            }
        records, _, _ = await driver.execute_query(
            "MATCH ()-[e:RELATES_TO {group_id: $g}]->() RETURN count(e) AS c", g=args.group_id
        )
        result["edges_in_group"] = records[0]["c"]
        records, _, _ = await driver.execute_query("MATCH ()-[e:RELATES_TO]->() RETURN count(e) AS c")
        result["edges_in_db"] = records[0]["c"]

        config = search_config(args.recipe, args.num_results, args.sim_min_score)
        queries = make_queries(facts, args.queries, args.seed, args.queries_file)
        recorder = CypherRecorder()
        recorder.install(driver)
        rng = random.Random(args.seed + 1)
        for _ in range(args.warmup):
            await run_search(graphiti, rng.choice(queries)[0], args.group_id, args.num_results, config)
        recorder.take()
        embedder.calls, embedder.seconds = 0, 0.0

        latencies: list[float] = []
        embed_latencies: list[float] = []
        cypher_per_query: list[list[tuple[str, float, int]]] = []
        hits = 0
        expected = 0
        first_hit_ranks: list[int] = []
        for query, fact in queries:
            before_embed = embedder.seconds
            start = time.perf_counter()
            found = await run_search(graphiti, query, args.group_id, args.num_results, config)
            latencies.append(time.perf_counter() - start)
            embed_latencies.append(embedder.seconds - before_embed)
            cypher_per_query.append(recorder.take())
            if fact is not None:
                expected += 1
                facts_found = [e.fact for e in found]
                if fact in facts_found:
                    hits += 1
                    first_hit_ranks.append(facts_found.index(fact) + 1)
        round_trips = [len(c) for c in cypher_per_query]
        cypher_sum = [sum(s for _, s, _ in c) for c in cypher_per_query]
        cypher_max = [max((s for _, s, _ in c), default=0.0) for c in cypher_per_query]
        statements: dict[str, list[float]] = {}
        statement_rows: dict[str, list[int]] = {}
        for calls in cypher_per_query:
            for text, seconds, rows in calls:
                statements.setdefault(text, []).append(seconds)
                statement_rows.setdefault(text, []).append(rows)
        result["search"] = {
            "api": "Graphiti.search (EDGE_HYBRID_SEARCH_RRF)"
            if config is None
            else f"Graphiti.search_ ({args.recipe or 'EDGE_HYBRID_SEARCH_RRF'})",
            "sim_min_score": args.sim_min_score if args.sim_min_score is not None else DEFAULT_MIN_SCORE,
            "num_results": args.num_results,
            "queries": len(queries),
            "warmup": args.warmup,
            "latency": summary_ms(latencies),
            "query_embedding": summary_ms(embed_latencies),
            "cypher_round_trips_per_query": {
                "min": min(round_trips, default=0),
                "max": max(round_trips, default=0),
                "mean": round(statistics.fmean(round_trips), 2) if round_trips else 0,
            },
            "cypher_sum_per_query": summary_ms(cypher_sum),
            "cypher_slowest_per_query": summary_ms(cypher_max),
            "cypher_statements": {
                text: {"count": len(v), "mean_rows": round(statistics.fmean(statement_rows[text]), 2), **summary_ms(v)}
                for text, v in sorted(statements.items())
            },
            "expected_fact_hit_rate": round(hits / expected, 4) if expected else None,
            "expected_fact_mean_rank": round(statistics.fmean(first_hit_ranks), 2) if first_hit_ranks else None,
        }
        if args.show:
            for query, _ in queries[: args.show]:
                found = await run_search(graphiti, query, args.group_id, args.num_results, config)
                print(f"\n{query!r}", file=sys.stderr)
                for edge in found[:5]:
                    print(f"    {edge.fact}", file=sys.stderr)
        result["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    finally:
        with contextlib.suppress(Exception):
            await graphiti.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("facts", type=Path, help="JSONL of {source, relation, target, fact}")
    parser.add_argument("--uri", default="bolt://127.0.0.1:7687")
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--password", default=os.environ.get("NEO4J_PASSWORD", ""))
    parser.add_argument("--database", default="neo4j")
    parser.add_argument("--group-id", default="graphiti-peer", help="graphiti group_id (letters, digits, - and _)")
    parser.add_argument("--limit", type=int, default=0, help="load only the first N facts (0: all)")
    parser.add_argument("--batch-size", type=int, default=1000, help="facts per write transaction")
    parser.add_argument("--reset", action="store_true", help="delete the group's nodes before loading")
    parser.add_argument("--skip-load", action="store_true", help="search what is already in the group")
    parser.add_argument("--queries", type=int, default=200, help="generated queries (ignored with --queries-file)")
    parser.add_argument("--queries-file", type=Path, help='JSONL of {"query": ..., "fact": optional expected fact}')
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--num-results", type=int, default=10)
    parser.add_argument(
        "--recipe",
        help="a name from graphiti_core.search.search_config_recipes for Graphiti.search_ "
        "(default: Graphiti.search, i.e. EDGE_HYBRID_SEARCH_RRF)",
    )
    parser.add_argument(
        "--sim-min-score",
        type=float,
        help=f"cosine cut-off of the similarity leg (graphiti's default: {DEFAULT_MIN_SCORE}), via Graphiti.search_",
    )
    parser.add_argument("--model", type=Path, help=f"sentence-transformers folder (default: {DEFAULT_MODEL_PACKAGE})")
    parser.add_argument(
        "--torch-threads",
        type=int,
        default=1,
        help="torch.set_num_threads for the local model (default 1: steadier under CPU contention; 0: torch's default)",
    )
    parser.add_argument(
        "--onnx",
        type=Path,
        help="embed with ONNX Runtime from graphmem's export of the model (<cache>/onnx/*.onnx), as graphmem does",
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--show", type=int, default=0, help="print the top facts for the first N queries (stderr)")
    parser.add_argument("--out", type=Path, help="also write the JSON result here")
    args = parser.parse_args()

    # graphiti's RETURN lists e.reference_time, which bulk-written edges lack: Neo4j sends a 01N52 warning per query.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    result = asyncio.run(main_async(args))
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
