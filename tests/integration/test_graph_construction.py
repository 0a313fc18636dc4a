"""Graph construction on write, in the real Neo4j: each edge kind a write builds (FOLLOWS, ABOUT an entity found
in the content, SIMILAR_TO, a fact's source turn) is the only way to an answer, and search finds it over that edge;
a time expression in the query picks the memory of that time; rebuild-graph builds the same edges afterwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.graph.construct import graph_options
from graphmem.graph.rebuild import rebuild_graph
from graphmem.models import MemoryDraft, MemoryKind, Role, Task, Turn
from graphmem.retrieval import Channel, RetrievalService, SearchOptions
from graphmem.retrieval.formula import FormulaWeights
from graphmem.service import MemoryService
from graphmem.store import Store

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def only(settings: Settings, **graph: object) -> Settings:
    """Settings with every construction off but the ones given."""
    off: dict[str, object] = {"graph_follows": False, "graph_entities": False, "graph_similar_k": 0}
    return settings.model_copy(update={**off, **graph})


def one_seed(namespace: str, **kw: object) -> SearchOptions:
    return SearchOptions(namespaces=(namespace,), k=5, channels=(Channel.VECTOR,), seed_k=1, hops=1, **kw)  # type: ignore[arg-type]


async def edges(store: Store, namespace: str, type_: str) -> set[tuple[str, str]]:
    return {(r["source"], r["target"]) for r in await store.read("test/edges_of_type", namespace=namespace,
                                                                   type=type_)}


async def log_task(service: MemoryService, namespace: str, task_id: str, texts: list[str]) -> list[str]:
    await service.tasks.start(Task(id=task_id, namespace=namespace, agent="test", started_at=T0))
    turns = [Turn(id=f"{task_id}-t{i}", task_id=task_id, seq=i, role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
                  content=t, at=T0 + timedelta(minutes=i)) for i, t in enumerate(texts)]
    await service.tasks.log_turns(namespace, task_id, turns)
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=t, task_id=task_id,
                          created_at=T0 + timedelta(minutes=i), derived_from=(f"{task_id}-t{i}",))
              for i, t in enumerate(texts)]
    return [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]


def searcher(service: MemoryService, **weights: float) -> RetrievalService:
    return RetrievalService(service.store, service.embedder, service.settings, versions=service.versions,
                            weights=FormulaWeights.model_validate(weights) if weights else None)


async def test_follows_window_reaches_the_answer_turn(store: Store, embedder: Embedder, migrated: Settings,
                                                      namespace: str) -> None:
    service = MemoryService(store, embedder, only(migrated, graph_follows=True))
    ask, answer, later = await log_task(service, namespace, "weekend", [
        "What did you get up to at the weekend with your aunt?",
        "We threw bowls on a wheel and glazed them, it was messy but fun.",
        "Shall we book the restaurant for Friday?",
    ])
    assert (answer, ask) in await edges(store, namespace, "FOLLOWS")
    assert (later, answer) in await edges(store, namespace, "FOLLOWS")
    got = await searcher(service).search("What did she do at the weekend with her aunt?", one_seed(namespace))
    by_id = {r.memory.id: r for r in got.results}
    assert got.results[0].memory.id == ask
    assert answer in by_id
    assert [(p.source_id, p.type, p.target_id) for p in by_id[answer].path] == [(answer, "FOLLOWS", ask)]


async def test_entity_found_in_content_links_two_tasks(store: Store, embedder: Embedder, migrated: Settings,
                                                       namespace: str) -> None:
    service = MemoryService(store, embedder, only(migrated, graph_entities=True))
    (adopted,) = await log_task(service, namespace, "s1", ["Caroline adopted a beagle puppy called Biscuit."])
    (chewed,) = await log_task(service, namespace, "s2", ["Biscuit's chewed through the sofa cushions again."])
    got = await searcher(service).search("Which puppy did Caroline adopt?", one_seed(namespace))
    by_id = {r.memory.id: r for r in got.results}
    assert got.results[0].memory.id == adopted
    assert chewed in by_id, "reached through the entity both mention"
    assert [p.type for p in by_id[chewed].path] == ["ABOUT", "ABOUT"]
    assert by_id[chewed].path[0].target_id == "biscuit"  # "Biscuit" and "Biscuit's" are one entity


async def test_similar_to_joins_paraphrases_across_sessions(store: Store, embedder: Embedder, migrated: Settings,
                                                            namespace: str) -> None:
    service = MemoryService(store, embedder, only(migrated, graph_similar_k=3, graph_similar_min=0.5))
    (first,) = await log_task(service, namespace, "s1", ["I am training for a marathon in the autumn."])
    (second,) = await log_task(service, namespace, "s2", ["I'm preparing to run a marathon this fall."])
    (noise,) = await log_task(service, namespace, "s3", ["The plumber fixed the kitchen tap."])
    similar = await edges(store, namespace, "SIMILAR_TO")
    assert (second, first) in similar
    assert not {e for e in similar if noise in e}
    got = await searcher(service).search("training for a marathon in the autumn", one_seed(namespace))
    by_id = {r.memory.id: r for r in got.results}
    assert got.results[0].memory.id == first
    assert [p.type for p in by_id[second].path] == ["SIMILAR_TO"]
    assert by_id[second].path[0].weight > 0.5


async def test_a_fact_hit_returns_its_source_turn(store: Store, embedder: Embedder, migrated: Settings,
                                                  namespace: str) -> None:
    service = MemoryService(store, embedder, only(migrated))
    (turn_memory,) = await log_task(service, namespace, "s1", ["Yeah, we finally signed the papers on Tuesday!"])
    (fact,) = [r.id for r in (await service.write_memories([MemoryDraft(
        namespace=namespace, kind=MemoryKind.SEMANTIC, content="Jon and Gina bought a house together.",
        derived_from=("s1-t0",))])).items]
    got = await searcher(service).search("Did Jon and Gina buy a house?", one_seed(namespace))
    by_id = {r.memory.id: r for r in got.results}
    assert got.results[0].memory.id == fact
    assert [p.type for p in by_id[turn_memory].path] == ["DERIVED_FROM", "DERIVED_FROM"]


async def test_time_expression_selects_the_memory_of_that_month(store: Store, embedder: Embedder,
                                                                migrated: Settings, namespace: str) -> None:
    service = MemoryService(store, embedder, only(migrated))
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=c, created_at=at) for c, at in (
        ("Melanie went camping with her kids by the river.", datetime(2023, 7, 2, tzinfo=UTC)),
        ("Melanie went camping with the kids in the mountains.", datetime(2023, 6, 3, tzinfo=UTC)),
    )]
    july, june = [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]
    options = SearchOptions(namespaces=(namespace,), k=2, hops=0)
    timed = searcher(service, time=0.2)
    assert next(r.memory.id for r in (await timed.search("Where did Melanie go camping in June 2023?",
                                                     options)).results) == june
    assert next(r.memory.id for r in (await timed.search("Where did Melanie go camping in July 2023?",
                                                     options)).results) == july


async def test_rebuild_graph_adds_the_edges_of_an_older_write(store: Store, embedder: Embedder, migrated: Settings,
                                                              namespace: str) -> None:
    bare = MemoryService(store, embedder, only(migrated))
    ask, answer = await log_task(bare, namespace, "s1", ["Caroline joined a pottery class.",
                                                         "Caroline said the pottery class is on Mondays."])
    assert not await edges(store, namespace, "FOLLOWS")
    full = only(migrated, graph_follows=True, graph_entities=True, graph_similar_k=3, graph_similar_min=0.5)
    report = await rebuild_graph(store, graph_options(full), namespaces=[namespace])
    again = await rebuild_graph(store, graph_options(full), namespaces=[namespace])
    assert report.memories == 2
    assert await edges(store, namespace, "FOLLOWS") == {(answer, ask)}
    assert len(await edges(store, namespace, "SIMILAR_TO")) == 1  # one edge per pair, however often rebuilt
    about = sum(len(r["memories"]) for r in await store.read("test/entity_links", namespace=namespace))
    assert about >= 2
    # each edge counted once (both memories name their FOLLOWS edge), and as created only by the run that made it
    assert (report.follow_links, report.similar_links, report.entity_links) == (1, 1, about)
    assert again.memories == 2
    assert (again.follow_links, again.similar_links, again.entity_links) == (0, 0, 0)
    assert "0 ABOUT, 0 SIMILAR_TO, 0 FOLLOWS edges created" in again.line()
    assert {"pottery class", "caroline"} <= {r["name"] for r in await store.read("graph/entities",
                                                                                  namespace=namespace, limit=50)}
