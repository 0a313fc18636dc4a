"""Smaller graphs for analysis: one memory's neighbourhood, and the subgraph behind a search's results (the paths
that reached them, with their score parts), keyed as ``export_namespace`` keys nodes."""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from graphmem.analysis.export import node_key
from graphmem.retrieval.types import SearchResponse
from graphmem.service.browse import Neighborhood
from graphmem.store import Store


def neighborhood_graph(view: Neighborhood) -> nx.MultiDiGraph[str]:
    """``BrowseService.neighborhood``'s answer as a graph; ``center`` names the start node's key."""
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    keys = {n.key: node_key(n.label, n.id) for n in view.nodes}
    for n in view.nodes:
        graph.add_node(keys[n.key], label=n.label, id=n.id, kind=n.kind, content=n.content, status=n.status,
                       integrity=n.integrity)
    for e in view.edges:
        if e.source in keys and e.target in keys:
            graph.add_edge(keys[e.source], keys[e.target], key=e.type, type=e.type, weight=e.weight)
    graph.graph["center"] = keys.get(view.center)
    return graph


async def search_graph(store: Store, response: SearchResponse, namespaces: Sequence[str]) -> nx.MultiDiGraph[str]:
    """The results as nodes (``rank``, ``score`` and every score part as attributes) and the edges of the paths that
    reached them; the memories, entities, turns and tasks those paths pass through are read from the store (memories
    verified; a node the store no longer has is left out with its edges)."""
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(query=response.query)
    on_paths = {x for r in response.results for step in r.path for x in (step.source_id, step.target_id)}
    results = {r.memory.id for r in response.results}
    memories = await store.get_memories(sorted(on_paths - results), namespaces)
    for m in memories:
        graph.add_node(node_key("Memory", m.id), label="Memory", id=m.id, kind=m.kind.value, content=m.content,
                       status=m.status.value, result=False)
    others = sorted(on_paths - results - {m.id for m in memories})
    keys = {m.id: node_key("Memory", m.id) for m in memories}
    if others:
        for row in await store.read("analysis/path_nodes", ids=others, namespaces=list(namespaces)):
            keys[row["id"]] = node_key(row["label"], row["id"])
            graph.add_node(keys[row["id"]], label=row["label"], id=row["id"], content=row["text"], result=False)
    for rank, r in enumerate(response.results, start=1):
        keys[r.memory.id] = node_key("Memory", r.memory.id)
        parts = r.parts.model_dump(exclude={"channels", "ranks"})
        graph.add_node(keys[r.memory.id], label="Memory", id=r.memory.id, kind=r.memory.kind.value,
                       content=r.memory.content, status=r.memory.status.value, result=True, rank=rank,
                       score=r.score, seed=r.seed_id or r.memory.id, channels=dict(r.parts.channels), **parts)
    for r in response.results:
        for step in r.path:
            if step.source_id in keys and step.target_id in keys:
                graph.add_edge(keys[step.source_id], keys[step.target_id], key=step.type, type=step.type,
                               weight=step.weight)
    return graph


__all__ = ["neighborhood_graph", "search_graph"]
