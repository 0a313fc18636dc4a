"""Relation expansion: spreading activation from the seeds over typed edges (pure).

Each hop passes activation along edges: ``a(v) += a(u) * type_weight * edge_weight * decay / degree(u) ** beta``.
Dividing by a power of the degree keeps hubs (an entity that hundreds of memories are ABOUT) from flooding
the candidates. Entities and turns are intermediate nodes: they carry activation but are not results. Every
node keeps the path of its strongest incoming activation: that path is the explanation of a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from graphmem.retrieval.types import PathStep

TYPE_WEIGHTS: dict[str, float] = {
    "SUPPORTS": 0.9, "CAUSES": 0.8, "PART_OF": 0.8, "IS_A": 0.7, "DERIVED_FROM": 0.85, "SUPERSEDES": 0.6,
    "CONTRADICTS": 0.5, "RELATES_TO": 0.6, "FOLLOWS": 0.5, "SIMILAR_TO": 0.5, "ABOUT": 0.5, "MERGED_INTO": 0.8,
    "FROM_TASK": 0.3,
}
"""How much activation each relationship type carries (both directions)."""


@dataclass(frozen=True)
class Edge:
    source: str  # node key (element id) of the start node
    target: str
    type: str
    weight: float
    source_id: str | None  # the graphmem id (memories, turns, tasks) or entity name, for paths
    target_id: str | None


@dataclass
class Activation:
    value: float = 0.0
    best_in: float = 0.0
    path: tuple[Edge, ...] = ()
    """The edges of the strongest way in, from the seed (``path_steps`` makes them a result's path)."""
    seed: str | None = None
    hops: int = 0


@dataclass
class ExpansionConfig:
    hops: int = 1
    decay: float = 0.5
    degree_beta: float = 0.5
    type_weights: Mapping[str, float] = field(default_factory=lambda: dict(TYPE_WEIGHTS))
    ppr_alpha: float = 0.5
    """Personalised PageRank mode (``retrieval.ppr``): the restart probability of its walk (a walk takes 1 / alpha
    steps on average; 0.5, HippoRAG's, keeps it about as local as one hop of spreading)."""


def seed_state(seeds: Mapping[str, float]) -> dict[str, Activation]:
    return {key: Activation(value=a, best_in=a, seed=key) for key, a in seeds.items()}


def spread_hop(state: dict[str, Activation], frontier: Mapping[str, float], walks: Sequence[tuple[str, Edge]],
               degree: Mapping[str, int], config: ExpansionConfig, hop: int) -> dict[str, float]:
    """Pass the frontier's activation over the edges its nodes walked: ``walks`` are ``(walker, edge)`` pairs, the
    walker one end of the edge (either direction); returns what each node received.

    An edge passes from the nodes that walked it only: when both ends walked it, once each way; when one did, from
    that one (the other's activation goes over the edges it walked). A pair listed twice counts once."""
    incoming: dict[str, float] = {}
    for u, edge in dict.fromkeys(walks):
        a_u = frontier.get(u)
        if not a_u:
            continue
        v = edge.target if edge.source == u else edge.source
        passed = (a_u * config.type_weights.get(edge.type, 0.0) * edge.weight * config.decay
                  / max(degree.get(u, 1), 1) ** config.degree_beta)
        if passed <= 0.0:
            continue
        incoming[v] = incoming.get(v, 0.0) + passed
        node = state.setdefault(v, Activation(hops=hop))
        if passed > node.best_in and node.hops != 0:
            src = state[u]
            node.best_in, node.path, node.seed, node.hops = passed, (*src.path, edge), src.seed, hop
    for v, a in incoming.items():
        state[v].value += a
    return incoming


def path_steps(path: Sequence[Edge]) -> tuple[PathStep, ...]:
    """A path as the API shows it: graphmem ids (entity names), else element ids."""
    return tuple(PathStep(source_id=e.source_id or e.source, target_id=e.target_id or e.target, type=e.type,
                          weight=e.weight) for e in path)


def spread(seeds: Mapping[str, float], edges_by_hop: Sequence[Sequence[Edge]], degree: Mapping[str, int],
           config: ExpansionConfig) -> dict[str, Activation]:
    """Activation of every node reached, seeds included (``edges_by_hop[h]`` leave the frontier of hop h: every
    frontier node at an end of one walks it)."""
    state = seed_state(seeds)
    frontier: Mapping[str, float] = dict(seeds)
    for hop, edges in enumerate(edges_by_hop[: config.hops], start=1):
        walks = [(end, e) for e in edges for end in dict.fromkeys((e.source, e.target)) if end in frontier]
        frontier = spread_hop(state, frontier, walks, degree, config, hop)
    return state
