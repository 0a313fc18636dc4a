"""The peer benchmark's data in graphiti: facts read from JSONL, turned into ``EntityNode`` / ``EntityEdge``
objects with their embeddings, written in batches with graphiti's bulk writer, a group deleted; and the queries."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphiti_core import Graphiti
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge
from graphiti_core.nodes import EntityNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk
from graphiti_core.utils.datetime_utils import utc_now

if TYPE_CHECKING:
    from peer_clients import SentenceTransformerEmbedder


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


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
        count: int = records[0]["c"]
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
