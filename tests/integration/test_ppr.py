"""Personalised PageRank expansion (``expansion_mode: ppr``) on hand-built graphs in the real Neo4j, with the real
embedder: the answer is reachable only over the graph, and PPR mode returns it with the path that reached it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.models import MemoryDraft, MemoryKind, Relation, RelationType
from graphmem.retrieval import Channel, RerankMode, RetrievalService, SearchOptions
from graphmem.retrieval.types import ExpansionMode, SearchResponse
from graphmem.service import MemoryService
from tests.integration.api_support import Api, open_api

QUESTION = "Where are Project Falcon's customer records?"
PPR = ExpansionMode.PPR


async def write(service: MemoryService, ns: str, *contents: str, entities: tuple[str, ...] = ()) -> list[str]:
    drafts = [MemoryDraft(namespace=ns, kind=MemoryKind.SEMANTIC, content=c, entities=entities) for c in contents]
    return [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]


def ids(response: SearchResponse) -> list[str]:
    return [r.memory.id for r in response.results]


def path(response: SearchResponse, memory_id: str) -> list[tuple[str, str, str]]:
    (hit,) = [r for r in response.results if r.memory.id == memory_id]
    return [(p.source_id, p.type, p.target_id) for p in hit.path]


def options(ns: str, **kw: object) -> SearchOptions:
    base: dict[str, object] = {"namespaces": (ns,), "k": 10, "channels": (Channel.VECTOR,), "seed_k": 1,
                               "rerank": RerankMode.NONE}
    return SearchOptions(**(base | kw))  # type: ignore[arg-type]


async def test_the_answer_behind_a_shared_entity_comes_back_with_its_path(service: MemoryService,
                                                                         namespace: str) -> None:
    [seed] = await write(service, namespace, "The Orion cluster stores the customer records of Project Falcon.",
                         entities=("Zedra",))
    [answer] = await write(service, namespace, "Zedra signed the lease last winter.", entities=("Zedra",))
    [noise] = await write(service, namespace, "The team lunch is on Thursdays at noon.")
    retrieval = RetrievalService(service.store, service.embedder, service.settings)
    flat = await retrieval.search(QUESTION, options(namespace, hops=0, expansion_mode=PPR))
    assert ids(flat) == [seed]  # the indexes alone do not find it
    found = await retrieval.search(QUESTION, options(namespace, hops=1, expansion_mode=PPR))
    assert ids(found)[:2] == [seed, answer]
    assert noise not in ids(found)
    assert path(found, answer) == [(seed, "ABOUT", "zedra"), (answer, "ABOUT", "zedra")]
    reached = found.results[1]
    assert reached.seed_id == seed
    assert 0 < reached.parts.expansion < found.results[0].score
    assert "expand" in found.timings_ms  # statement by statement
    assert "graph" not in found.timings_ms
    spreading = await retrieval.search(QUESTION, options(namespace, hops=1))
    assert "graph" in spreading.timings_ms  # the default mode is still the one statement
    assert path(spreading, answer) == path(found, answer)
    formula = await retrieval.search(QUESTION, options(namespace, hops=1, expansion_mode=PPR,
                                                       rerank=RerankMode.FORMULA))
    assert answer in ids(formula)
    assert path(formula, answer) == path(found, answer)


async def test_two_hops_of_relations_reach_further_and_only_when_asked(service: MemoryService,
                                                                       namespace: str) -> None:
    falcon, orion, hetzner = await write(
        service, namespace,
        "Project Falcon stores all of its customer records in the Orion cluster.",
        "The Orion cluster was moved last spring.",
        "Hetzner runs the Frankfurt data centre.",
    )
    await service.relate(namespace, [Relation(source_id=falcon, target_id=orion, type=RelationType.PART_OF),
                                     Relation(source_id=orion, target_id=hetzner, type=RelationType.CAUSES)])
    retrieval = RetrievalService(service.store, service.embedder, service.settings)
    one = await retrieval.search(QUESTION, options(namespace, hops=1, expansion_mode=PPR))
    assert orion in ids(one)
    assert hetzner not in ids(one)  # the walk of one hop does not fetch it: PPR runs on what the walk fetched
    two = await retrieval.search(QUESTION, options(namespace, hops=2, expansion_mode=PPR))
    assert ids(two)[0] == falcon
    assert path(two, hetzner) == [(falcon, "PART_OF", orion), (orion, "CAUSES", hetzner)]
    by_id = {r.memory.id: r for r in two.results}
    assert by_id[orion].parts.expansion > by_id[hetzner].parts.expansion > 0


@pytest.fixture
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    async with open_api(migrated, embedder, seed=True) as env:
        yield env


async def test_graphql_takes_the_expansion_mode(api: Api) -> None:
    query = """query($q: String!, $ns: String!, $mode: ExpansionMode!) {
      search(query: $q, namespaces: [$ns], hops: 1, expansionMode: $mode) {
        results { memory { id } path { type } } timings { stage } } }"""
    stages = {}
    for mode in ("SPREADING", "PPR"):
        data = await api.data(api.tokens.b, query, {"q": "the vault code", "ns": api.ns_b, "mode": mode})
        assert set(api.b.memory_ids) <= {r["memory"]["id"] for r in data["search"]["results"]}
        stages[mode] = {t["stage"] for t in data["search"]["timings"]}
    assert "graph" in stages["SPREADING"]
    assert "expand" in stages["PPR"]
