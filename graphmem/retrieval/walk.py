"""The relation expansion statement by statement: from the seeds, hop by hop over ``retrieval/expand_hop``, scored
by spreading activation (``expansion.spread_hop``) or by personalised PageRank over every edge the walk fetched
(``ppr``, ``ExpansionMode.PPR``).

Both modes walk the same bounded subgraph: the strongest frontier nodes (by spreading activation) walk their
strongest edges; the entities and turns reached that are no hubs walk on to the memories linked to them. The one
statement (``retrieval/search``) computes the spreading mode of a search of at most one hop by itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.retrieval.expansion import Activation, Edge, ExpansionConfig, seed_state, spread_hop
from graphmem.retrieval.ppr import personalised_pagerank
from graphmem.retrieval.types import ExpansionMode, SearchOptions
from graphmem.retrieval.vary import FILTERS, in_map
from graphmem.store import Store


@dataclass(frozen=True)
class WalkLimits:
    """How far a walk reaches (``retrieval.service``'s ``FRONTIER_LIMIT``, ``FANOUT``, ``VIA_*``, ``EXPAND_TYPES``)."""

    frontier: int
    """Frontier nodes that walk (the strongest)."""
    fanout: int
    """Edges each of them walks (its strongest by type weight * edge weight)."""
    via: int
    """Entities and turns that walk on to the memories linked to them (the most activated)."""
    via_fanout: int
    via_max_degree: int
    """Entities and turns with more edges than this do not walk on."""
    types: Sequence[str]


@dataclass
class Walk:
    """What a walk fetched: the spreading state, the memory id of every Memory key seen, every node's degree, and
    every edge walked (the local subgraph personalised PageRank runs over)."""

    state: dict[str, Activation]
    keys: dict[str, str]
    degree: dict[str, int]
    edges: list[Edge]


async def expand(store: Store, seeds: Mapping[str, float], seed_keys: Mapping[str, str], options: SearchOptions,
                 filters: dict[str, Any], config: ExpansionConfig,
                 limits: WalkLimits) -> tuple[dict[str, Activation], dict[str, str]]:
    """Activation per node key (element id), and the memory id of every Memory key seen."""
    if options.hops == 0 or not seeds:
        return {}, {}
    walked = await walk(store, {seed_keys[i]: a for i, a in seeds.items()}, {seed_keys[i]: i for i in seeds},
                        config, filters, limits)
    if options.expansion_mode is ExpansionMode.PPR:
        by_key = {seed_keys[i]: a for i, a in seeds.items()}
        return personalised_pagerank(by_key, walked.edges, walked.degree, config), walked.keys
    return walked.state, walked.keys


async def walk(store: Store, seeds: dict[str, float], keys: dict[str, str], config: ExpansionConfig,
               filters: dict[str, Any], limits: WalkLimits) -> Walk:
    """``config.hops`` hops from the seeds (by node key), spreading activation as it goes (which chooses the
    frontiers). A hop goes from memories to memories: through a direct edge, or through one entity or turn that
    both are linked to (memory -ABOUT-> entity <-ABOUT- memory; memory -DERIVED_FROM-> turn <- ...)."""
    done = Walk(seed_state(seeds), dict(keys), {}, [])
    frontier: Mapping[str, float] = dict(seeds)
    for hop in range(1, config.hops + 1):
        received = await step(store, frontier, done, config, hop, filters, limits, limit=limits.frontier,
                              fanout=limits.fanout)
        via = {k: a for k, a in received.items() if k not in done.keys and done.degree[k] <= limits.via_max_degree}
        if via:
            for k, a in (await step(store, via, done, config, hop, filters, limits, limit=limits.via,
                                    fanout=limits.via_fanout)).items():
                received[k] = received.get(k, 0.0) + a
        frontier = {k: a for k, a in received.items() if k in done.keys}
    return done


async def step(store: Store, frontier: Mapping[str, float], done: Walk, config: ExpansionConfig, hop: int,
               filters: dict[str, Any], limits: WalkLimits, *, limit: int, fanout: int) -> dict[str, float]:
    """One walk step from the ``limit`` strongest frontier nodes, ``fanout`` edges each; records memory keys,
    degrees and the edges as it goes; returns what each node received."""
    top = dict(sorted(frontier.items(), key=lambda kv: (-kv[1], kv[0]))[:limit])
    (row,) = await store.read("retrieval/expand_hop", **in_map(("frontier", *FILTERS), frontier=list(top),
                                                               types=list(limits.types),
                                                               type_weights=dict(config.type_weights),
                                                               fanout=fanout, **filters))
    walks = []
    for node in row["nodes"]:
        here, here_id = node["key"], node["id"]
        done.degree[here] = int(node["degree"])
        for out, type_, weight, there, there_id, memory, there_degree in zip(
                node["out"], node["type"], node["weight"], node["to_key"], node["to_id"], node["to_memory"],
                node["to_degree"], strict=True):
            if memory:
                done.keys[there] = there_id
            done.degree[there] = int(there_degree)
            walks.append((here, Edge(here, there, type_, float(weight), here_id, there_id) if out
                                 else Edge(there, here, type_, float(weight), there_id, here_id)))
    done.edges += [e for _, e in walks]
    return spread_hop(done.state, top, walks, done.degree, config, hop)
