"""Writes a small Graphiti graph with graphiti-core's own API (run with ``.graphiti-venv/bin/python``, never .venv).

    .graphiti-venv/bin/python tests/integration/graphiti_writer.py --uri bolt://... --password P --prefix t123

Two groups (``<prefix>_alpha`` and ``<prefix>-beta``), each with episodes, entities (MENTIONS from the episodes)
and facts; in alpha, "Alice works at Acme Corp" is invalidated by "Alice works at Globex" the way graphiti's
``resolve_edge_contradictions`` does it (``invalid_at`` = the new fact's ``valid_at``, ``expired_at`` set). Objects
are ``EpisodicNode`` / ``EpisodicEdge`` / ``EntityNode`` / ``EntityEdge`` written in one call of
``graphiti_core.utils.bulk_utils.add_nodes_and_edges_bulk`` (what ``add_episode`` does after its LLM steps). No LLM
is configured; embeddings come from a tiny deterministic ``EmbedderClient`` (no torch). The driver is built
outside the event loop, so graphiti schedules no index creation in the test database.

Prints one JSON object: per group, the counts written and the uuids the test checks.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

import argparse
import asyncio
import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.edges import EntityEdge, EpisodicEdge
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

DIM = 16


class HashEmbedder(EmbedderClient):
    """Deterministic unit vectors from a hash of the text: enough for graphiti to store, no model needed."""

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        digest = hashlib.sha256(str(input_data).encode()).digest()
        raw = [b - 127.5 for b in digest[:DIM]]
        norm = sum(x * x for x in raw) ** 0.5
        return [x / norm for x in raw]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [await self.create(t) for t in input_data_list]


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


GROUPS: dict[str, dict[str, Any]] = {
    "alpha": {
        "episodes": [
            ("e1", "2024-01-10", "Alice: I just joined Acme Corp as a backend engineer.", ["Alice", "Acme Corp"]),
            ("e2", "2024-06-03", "Alice: I left Acme Corp, I work at Globex now.", ["Alice", "Acme Corp", "Globex"]),
            ("e3", "2024-06-20", "Bob: Alice and I went hiking in the Alps.", ["Bob", "Alice", "Alps"]),
        ],
        "entities": [
            ("Alice", "Person", "Alice is a backend engineer who moved from Acme Corp to Globex."),
            ("Acme Corp", "Organization", ""),
            ("Globex", "Organization", ""),
            ("Bob", "Person", ""),
            ("Alps", "Location", "The Alps are the mountains where Alice and Bob hike."),
        ],
        # key, source, relation, target, fact, valid_at, invalid_at, episodes
        "facts": [
            ("old", "Alice", "WORKS_AT", "Acme Corp", "Alice works at Acme Corp as a backend engineer.",
             "2024-01-10", "2024-06-03", ["e1", "e2"]),
            ("new", "Alice", "WORKS_AT", "Globex", "Alice works at Globex.", "2024-06-03", None, ["e2"]),
            ("hike", "Bob", "HIKED_WITH", "Alice", "Bob went hiking in the Alps with Alice.", "2024-06-20", None,
             ["e3"]),
            ("alps", "Bob", "VISITED", "Alps", "Bob visited the Alps.", "2024-06-20", None, ["e3"]),
        ],
    },
    "beta": {
        "episodes": [
            ("b1", "2024-03-01", "Carol prefers green tea over coffee.", ["Carol", "green tea"]),
            ("b2", "2024-03-05", "Carol adopted a grey cat named Miso.", ["Carol", "Miso"]),
        ],
        "entities": [
            ("Carol", "Person", ""),
            ("green tea", "Drink", ""),
            ("Miso", "Animal", "Miso is Carol's grey cat."),
        ],
        "facts": [
            ("tea", "Carol", "PREFERS", "green tea", "Carol prefers green tea over coffee.", "2024-03-01", None,
             ["b1"]),
            ("cat", "Carol", "OWNS", "Miso", "Carol owns a grey cat named Miso.", "2024-03-05", None, ["b2"]),
        ],
    },
}


async def build(group_id: str, spec: dict[str, Any], embedder: HashEmbedder) -> tuple[
        list[EpisodicNode], list[EpisodicEdge], list[EntityNode], list[EntityEdge], dict[str, Any]]:
    now = datetime.now(UTC)
    entities = {name: EntityNode(name=name, group_id=group_id, labels=["Entity", label], summary=summary,
                                 name_embedding=await embedder.create(name), created_at=now)
                for name, label, summary in spec["entities"]}
    episodes = {key: EpisodicNode(name=f"episode {key}", group_id=group_id, source=EpisodeType.message,
                                  source_description="chat", content=content, valid_at=at(day), created_at=now)
                for key, day, content, _ in spec["episodes"]}
    mentions = [EpisodicEdge(group_id=group_id, source_node_uuid=episodes[key].uuid,
                             target_node_uuid=entities[name].uuid, created_at=now)
                for key, _, _, names in spec["episodes"] for name in names]
    facts: dict[str, EntityEdge] = {}
    for key, source, relation, target, fact, valid, invalid, cited in spec["facts"]:
        facts[key] = EntityEdge(
            group_id=group_id, source_node_uuid=entities[source].uuid, target_node_uuid=entities[target].uuid,
            name=relation, fact=fact, fact_embedding=await embedder.create(fact),
            episodes=[episodes[e].uuid for e in cited], created_at=now, valid_at=at(valid),
            invalid_at=at(invalid) if invalid else None, expired_at=now if invalid else None, reference_time=now)
    for key, *_, cited in spec["facts"]:
        for e in cited:
            episodes[e].entity_edges.append(facts[key].uuid)
    info = {
        "group_id": group_id,
        "episodes": len(episodes), "entities": len(entities), "facts": len(facts), "mentions": len(mentions),
        "summaries": sum(1 for _, _, s in spec["entities"] if s),
        "fact_uuids": {k: f.uuid for k, f in facts.items()},
        "facts_text": {k: f.fact for k, f in facts.items()},
        "invalid": {k: f.invalid_at.isoformat() for k, f in facts.items() if f.invalid_at},
        "valid": {k: f.valid_at.isoformat() for k, f in facts.items() if f.valid_at},
        "entity_names": [name for name, _, _ in spec["entities"]],
    }
    return list(episodes.values()), mentions, list(entities.values()), list(facts.values()), info


async def main_async(driver: Neo4jDriver, prefix: str) -> list[dict[str, Any]]:
    embedder = HashEmbedder()
    out: list[dict[str, Any]] = []
    try:
        for name, spec in GROUPS.items():
            group_id = f"{prefix}_{name}" if name == "alpha" else f"{prefix}-{name}"
            episodes, mentions, entities, facts, info = await build(group_id, spec, embedder)
            await add_nodes_and_edges_bulk(driver, episodes, mentions, entities, facts, embedder)
            out.append(info)
    finally:
        await driver.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", required=True)
    parser.add_argument("--user", default="neo4j")
    parser.add_argument("--password", default="")
    parser.add_argument("--database", default="neo4j")
    parser.add_argument("--prefix", required=True, help="group ids are <prefix>_alpha and <prefix>-beta")
    args = parser.parse_args()
    driver = Neo4jDriver(args.uri, args.user, args.password, database=args.database)  # outside the loop: no indices
    print(json.dumps(asyncio.run(main_async(driver, args.prefix))))


if __name__ == "__main__":
    main()
