"""The networkx export's shape on a hand-built graph: nodes by label with their attributes, typed edges with
weights, pages followed to the end, edges to nodes outside the export dropped and counted; the neighbourhood view
keyed like the export; GraphML and JSON files that read back whole. The store is faked at its I/O edge (``read``),
the signing check is the real one (disabled: every memory passes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import networkx as nx

from graphmem.analysis import JSON_NODE_KEY, GraphFormat, export_namespace, neighborhood_graph, node_key, write_graph
from graphmem.security.integrity import Integrity
from graphmem.service.browse import GraphEdge, GraphNode, Neighborhood
from graphmem.store import Store

AT = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)


def memory(i: int, edges: list[dict[str, Any]]) -> dict[str, Any]:
    return {"memory": {"id": f"m{i}", "namespace": "ns", "kind": "episodic", "content": f"turn {i}",
                       "status": "active", "confidence": 1.0, "created_at": AT, "tags": ["a"], "signature": "x",
                       "signature_key": "k"}, "edges": edges}


def edge(type_: str, label: str, target: str, weight: float = 1.0, gap_s: float | None = None) -> dict[str, Any]:
    return {"type": type_, "label": label, "target": target, "weight": weight, "gap_s": gap_s}


Page = tuple[list[dict[str, Any]], Callable[[dict[str, Any]], str]]
"""A page statement's rows, and the key its ``after`` is compared with."""


class FakeStore:
    """``read`` answers the three page statements from fixed lists, honouring ``after`` and ``limit``."""

    def __init__(self) -> None:
        self.integrity = Integrity(None)
        self.calls: list[str] = []
        self.memories = [
            memory(1, [edge("ABOUT", "Entity", "caroline"), edge("FROM_TASK", "Task", "t1")]),
            memory(2, [edge("FOLLOWS", "Memory", "m1", gap_s=60.0), edge("ABOUT", "Entity", "caroline"),
                       edge("FROM_TASK", "Task", "t1")]),
            memory(3, [edge("SUPPORTS", "Memory", "m2", 0.8), edge("SIMILAR_TO", "Memory", "gone", 0.7),
                       edge("ABOUT", "Entity", "lake")]),
        ]
        self.entities: list[dict[str, Any]] = [{"name": "caroline", "degree": 2}, {"name": "lake", "degree": 1}]
        self.tasks: list[dict[str, Any]] = [{"task": {"id": "t1", "title": "session 1", "status": "ended"},
                                             "turns": [{"id": "t1-0", "seq": 0, "role": "user", "content": "hi"},
                                                       {"id": "t1-1", "seq": 1, "role": "assistant",
                                                        "content": "hello"}]}]

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append(name)
        pages: dict[str, Page] = {"analysis/memory_page": (self.memories, lambda r: r["memory"]["id"]),
                                  "analysis/entity_page": (self.entities, lambda r: r["name"]),
                                  "analysis/task_page": (self.tasks, lambda r: r["task"]["id"])}
        rows, key = pages[name]
        return [r for r in rows if key(r) > params["after"]][: params["limit"]]


async def test_the_export_has_every_node_and_edge_with_its_attributes() -> None:
    store = FakeStore()
    seen: list[int] = []
    graph = await export_namespace(cast(Store, store), "ns", page_size=2, progress=seen.append)
    assert graph.number_of_nodes() == 3 + 2 + 1 + 2
    assert {n: a["label"] for n, a in graph.nodes(data=True)} == {
        "Memory:m1": "Memory", "Memory:m2": "Memory", "Memory:m3": "Memory", "Entity:caroline": "Entity",
        "Entity:lake": "Entity", "Task:t1": "Task", "Turn:t1-0": "Turn", "Turn:t1-1": "Turn"}
    assert graph.number_of_edges() == 7 + 2  # the memories' 8 edges but the one to "gone", and HAS_TURN twice
    assert graph.graph["edges_dropped"] == 1
    assert graph["Memory:m2"]["Memory:m1"]["FOLLOWS"] == {"type": "FOLLOWS", "weight": 1.0, "gap_s": 60.0}
    assert graph["Memory:m3"]["Memory:m2"]["SUPPORTS"]["weight"] == 0.8
    assert graph.in_degree("Entity:caroline") == 2
    m1 = graph.nodes["Memory:m1"]
    assert m1["created_at"] == AT
    assert m1["tags"] == ["a"]
    assert "signature" not in m1
    assert graph.nodes["Entity:caroline"]["degree_about"] == 2
    assert graph.nodes["Turn:t1-1"]["content"] == "hello"
    assert store.calls.count("analysis/memory_page") == 3  # pages of 2: m1-m2, m3, then an empty page
    assert sum(seen) == 3 + 2 + 1 + 2 == graph.number_of_nodes()  # the turns too: the bar ends at the node count


def test_a_neighbourhood_is_keyed_like_the_export() -> None:
    view = Neighborhood(center="e1", nodes=(
        GraphNode(key="e1", id="m1", label="Memory", kind="episodic", content="turn 1", status="active"),
        GraphNode(key="e2", id="caroline", label="Entity", content="caroline"),
    ), edges=(GraphEdge(source="e1", target="e2", type="ABOUT"), GraphEdge(source="e1", target="e9", type="X")))
    graph = neighborhood_graph(view)
    assert graph.graph["center"] == node_key("Memory", "m1")
    assert list(graph.edges(keys=True)) == [("Memory:m1", "Entity:caroline", "ABOUT")]


async def test_files_read_back_whole(tmp_path: Path) -> None:
    graph = await export_namespace(cast(Store, FakeStore()), "ns")
    write_graph(graph, tmp_path / "g.graphml", GraphFormat.GRAPHML)
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert (back.number_of_nodes(), back.number_of_edges()) == (graph.number_of_nodes(), graph.number_of_edges())
    assert back.nodes["Memory:m1"]["created_at"] == AT.isoformat()
    write_graph(graph, tmp_path / "g.json", GraphFormat.JSON)
    data = json.loads((tmp_path / "g.json").read_text(encoding="utf-8"))
    first = next(n for n in data["nodes"] if n[JSON_NODE_KEY] == "Memory:m1")
    assert first["id"] == "m1"  # the memory's own id, not overwritten by the node key
    again = nx.node_link_graph(data, name=JSON_NODE_KEY, edges="edges")
    assert again.number_of_edges() == graph.number_of_edges()
    assert dict(again.nodes(data=True)) == {n: {k: v.isoformat() if isinstance(v, datetime) else v
                                                for k, v in a.items()} for n, a in graph.nodes(data=True)}
