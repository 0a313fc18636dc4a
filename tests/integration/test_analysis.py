"""graphmem.analysis against the real Neo4j: a namespace exported to networkx holds what the database holds (nodes
by label, edges by type, the properties analysts use), paged; a tampered memory is left out with its edges; a
search's subgraph and a neighbourhood line up with the export; GraphML and JSON files read back whole."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import networkx as nx

from graphmem.analysis import (
    JSON_NODE_KEY,
    GraphFormat,
    export_namespace,
    neighborhood_graph,
    node_key,
    search_graph,
    write_graph,
)
from graphmem.analysis.export import DEFAULT_STATUSES
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.models import MemoryDraft, MemoryKind, Relation, RelationType, Role, Task, Turn
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.store import Store

T0 = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
HERE = Path(__file__).parent / "cypher"
TAMPER = (HERE / "tamper.cypher").read_text()
COUNTS = (HERE / "analysis_counts.cypher").read_text()
TEXTS = ["Caroline went to the LGBTQ support group on Sunday.", "Melanie asked how the support group went.",
         "Caroline said the group made her feel accepted.", "Melanie painted a sunrise over the lake in Maine."]


async def build(service: MemoryService, namespace: str) -> list[str]:
    await service.tasks.start(Task(id="chat-1", namespace=namespace, agent="test", started_at=T0))
    turns = [Turn(id=f"chat-1-t{i}", task_id="chat-1", seq=i, role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
                  content=t, at=T0 + timedelta(minutes=i)) for i, t in enumerate(TEXTS)]
    await service.tasks.log_turns(namespace, "chat-1", turns)
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=t, task_id="chat-1",
                          created_at=T0 + timedelta(minutes=i), derived_from=(f"chat-1-t{i}",))
              for i, t in enumerate(TEXTS)]
    drafts.append(MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, derived_from=("chat-1-t0",),
                              content="Caroline finds acceptance in her LGBTQ support group."))
    drafts.append(MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="The old ferry ran hourly."))
    ids = [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]
    await service.relate(namespace, [Relation(source_id=ids[4], target_id=ids[2], type=RelationType.SUPPORTS,
                                              weight=0.8)])
    await service.delete_memories(namespace, [ids[5]])
    return ids


async def test_a_namespace_exports_what_the_database_holds(store: Store, embedder: Embedder, migrated: Settings,
                                                           namespace: str, tmp_path: Path) -> None:
    service = MemoryService(store, embedder, migrated)
    ids = await build(service, namespace)
    pages: list[int] = []
    graph = await export_namespace(store, namespace, page_size=2, progress=pages.append)
    statuses = [s.value for s in DEFAULT_STATUSES]
    async with store.driver.session(database=store.database) as session:
        want = await (await session.run(COUNTS, namespace=namespace, statuses=statuses)).single()
    assert want is not None
    labels = Counter(attrs["label"] for _, attrs in graph.nodes(data=True))
    assert labels == {"Memory": want["memories"], "Entity": want["entities"], "Task": want["tasks"],
                      "Turn": want["turns"]}
    assert labels["Memory"] == 5
    assert labels["Turn"] == 4
    types = Counter(attrs["type"] for _, _, attrs in graph.edges(data=True))
    assert types == dict(want["pairs"])
    for expected in ("FOLLOWS", "DERIVED_FROM", "FROM_TASK", "HAS_TURN", "ABOUT", "SUPPORTS"):
        assert types[expected] > 0, expected
    assert len(pages) > 3  # memories came in pages of 2, then entities and tasks
    assert sum(pages) == graph.number_of_nodes()  # the progress counts every node, turns too
    fact = graph.nodes[node_key("Memory", ids[4])]
    assert fact["kind"] == "semantic"
    assert fact["content"].startswith("Caroline finds")
    assert isinstance(fact["created_at"], datetime)
    assert "signature" not in fact
    supports = graph.get_edge_data(node_key("Memory", ids[4]), node_key("Memory", ids[2]))
    assert supports is not None
    assert supports["SUPPORTS"]["weight"] == 0.8
    follows = graph.get_edge_data(node_key("Memory", ids[1]), node_key("Memory", ids[0]))
    assert follows is not None
    assert follows["FOLLOWS"]["gap_s"] == 60.0
    assert graph.has_edge(node_key("Task", "chat-1"), node_key("Turn", "chat-1-t3"))
    # every node's times are datetimes, tasks' and turns' as memories' (and so one ISO form in the files)
    assert graph.nodes[node_key("Task", "chat-1")]["started_at"] == T0
    assert graph.nodes[node_key("Turn", "chat-1-t3")]["at"] == T0 + timedelta(minutes=3)
    times = {n.split(":")[0]: a[k] for n, a in graph.nodes(data=True) for k in ("created_at", "started_at", "at")
             if k in a}
    assert set(times) == {"Memory", "Entity", "Task", "Turn"}
    assert all(isinstance(t, datetime) for t in times.values()), times

    for fmt, read in ((GraphFormat.GRAPHML, nx.read_graphml), (GraphFormat.JSON, None)):
        path = tmp_path / f"g.{fmt.value}"
        write_graph(graph, path, fmt)
        back = read(path) if read is not None else nx.node_link_graph(
            json.loads(path.read_text(encoding="utf-8")), name=JSON_NODE_KEY, edges="edges")
        assert (back.number_of_nodes(), back.number_of_edges()) == (graph.number_of_nodes(), graph.number_of_edges())
        for key, label in ((node_key("Memory", ids[0]), "created_at"), (node_key("Task", "chat-1"), "started_at"),
                           (node_key("Turn", "chat-1-t0"), "at")):
            assert back.nodes[key][label] == T0.isoformat(), (fmt, key)  # one form: "+00:00", never "Z"

    async with store.driver.session(database=store.database) as session:
        await session.run(TAMPER, rows=[{"namespace": namespace, "id": ids[2], "props": {"content": "changed"}}])
    tampered = await export_namespace(store, namespace)
    assert node_key("Memory", ids[2]) not in tampered
    assert tampered.number_of_nodes() == graph.number_of_nodes() - 1
    lost = graph.degree(node_key("Memory", ids[2]))
    assert tampered.number_of_edges() == graph.number_of_edges() - lost
    assert tampered.graph["edges_dropped"] == sum(1 for u, _ in graph.in_edges(node_key("Memory", ids[2])))


async def test_search_and_neighbourhood_graphs_line_up_with_the_export(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str) -> None:
    service = MemoryService(store, embedder, migrated)
    ids = await build(service, namespace)
    full = await export_namespace(store, namespace)
    retriever = RetrievalService(store, embedder, migrated, versions=service.versions)
    response = await retriever.search("How did Caroline feel about the support group?",
                                      SearchOptions(namespaces=(namespace,), k=4, hops=1))
    graph = await search_graph(store, response, [namespace])
    results = [n for n, a in graph.nodes(data=True) if a.get("result")]
    assert len(results) == len(response.results) > 0
    first = graph.nodes[node_key("Memory", response.results[0].memory.id)]
    assert first["rank"] == 1
    assert first["score"] == response.results[0].score
    assert "similarity" in first
    assert set(graph.nodes) <= set(full.nodes)  # the same keys as the export
    steps = sum(len(r.path) for r in response.results)
    assert graph.number_of_edges() <= steps
    view = await BrowseService(store).neighborhood(namespace, ids[2], hops=1)
    near = neighborhood_graph(view)
    assert near.graph["center"] == node_key("Memory", ids[2])
    assert set(near.nodes) <= set(full.nodes)
    assert near.number_of_edges() == len(view.edges) > 0


async def test_the_export_carries_metadata_summaries_and_provenance(
        store: Store, embedder: Embedder, migrated: Settings, namespace: str, tmp_path: Path) -> None:
    service = MemoryService(store, embedder, migrated)
    await build(service, namespace)
    fact = "The on-call rota for the payments service changes every Monday at 09:00."
    first = await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, id="rota",
                                                      content=fact, metadata={"ticket": "OPS-12"})])
    again = await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, id="rota-2",
                                                      content=fact)])  # a near-duplicate: strengthens "rota"
    assert (first.items[0].id, again.items[0].id) == ("rota", "rota")
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, summary_of="chat-1",
                                              id="sum-1", content="Caroline told Melanie about her support group.")])
    graph = await export_namespace(store, namespace)
    rota = graph.nodes[node_key("Memory", "rota")]
    assert rota["metadata"] == {"ticket": "OPS-12"}
    assert rota["reinforced_by"] == ["rota-2"]
    assert isinstance(rota["updated_at"], datetime)
    assert rota["updated_at"] > rota["created_at"]
    assert rota["summary"] is False
    assert graph.nodes[node_key("Memory", "sum-1")]["summary"] is True
    assert graph.nodes[node_key("Turn", "chat-1-t2")]["task_id"] == "chat-1"
    assert not any("signature" in a or "metadata_json" in a for _, a in graph.nodes(data=True))

    write_graph(graph, tmp_path / "g.graphml", GraphFormat.GRAPHML)
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert json.loads(back.nodes[node_key("Memory", "rota")]["metadata"]) == {"ticket": "OPS-12"}
    assert back.nodes[node_key("Memory", "sum-1")]["summary"] is True
    assert back.nodes[node_key("Turn", "chat-1-t2")]["task_id"] == "chat-1"
