"""Personalised PageRank over the local subgraph (graphmem.retrieval.ppr): pure, on hand-built graphs."""

from __future__ import annotations

import math
import random

import pytest

from graphmem.retrieval.expansion import TYPE_WEIGHTS, Edge, ExpansionConfig
from graphmem.retrieval.ppr import personalised_pagerank
from graphmem.retrieval.types import ExpansionMode, SearchOptions


def edge(s: str, t: str, type_: str = "ABOUT", w: float = 1.0) -> Edge:
    return Edge(s, t, type_, w, s, t)


def pair(rng: random.Random, nodes: list[str]) -> tuple[str, str]:
    """Two distinct nodes drawn by ``rng.sample``, as a pair (a list of unknown length cannot fill ``edge``'s s, t)."""
    s, t = rng.sample(nodes, 2)
    return s, t


def steps(path: tuple[Edge, ...]) -> list[tuple[str, str, str]]:
    return [(e.source, e.type, e.target) for e in path]


def degrees(edges: list[Edge], **whole: int) -> dict[str, int]:
    """Each node's degree as its count of edges here, unless given."""
    out: dict[str, int] = {}
    for e in set(edges):
        for k in (e.source, e.target):
            out[k] = out.get(k, 0) + 1
    return out | whole


def test_the_answer_two_hops_away_gets_mass_and_its_path() -> None:
    # seed -ABOUT-> pottery <-ABOUT- answer: the answer is reached only through the entity
    edges = [edge("seed", "pottery"), edge("answer", "pottery"), edge("seed", "other", "RELATES_TO", 0.2)]
    state = personalised_pagerank({"seed": 1.0}, edges, degrees(edges), ExpansionConfig())
    answer = state["answer"]
    assert answer.value > 0
    assert steps(answer.path) == [("seed", "ABOUT", "pottery"), ("answer", "ABOUT", "pottery")]
    assert answer.seed == "seed"
    assert answer.hops == 2
    assert answer.value > state["other"].value  # the way through the entity is stronger than the weak edge
    assert state["seed"].path == ()  # a seed is its own explanation


def test_one_edge_by_hand_is_on_the_spreading_scale() -> None:
    # seed - v, both of degree 1: pi_s = a + (1 - a) pi_v, pi_v = (1 - a) pi_s; value = pi * sum(seeds) / a
    alpha = 0.5
    state = personalised_pagerank({"s": 1.0}, [edge("s", "v", "SUPPORTS", 0.5)], {"s": 1, "v": 1},
                                  ExpansionConfig(ppr_alpha=alpha))
    pi_s = alpha / (1 - (1 - alpha) ** 2)
    assert state["s"].value == pytest.approx(pi_s / alpha)
    assert state["v"].value == pytest.approx((1 - alpha) * pi_s / alpha)
    assert state["v"].best_in == pytest.approx(1 - alpha)  # the one step from the best seed: (1 - a) * w / W(s)
    assert state["v"].value == pytest.approx(2 / 3)


def test_only_seeds_keep_their_fused_activation() -> None:
    seeds = {"a": 1.0, "b": 0.4, "c": 0.0}
    state = personalised_pagerank(seeds, [], {}, ExpansionConfig())
    assert {k: a.value for k, a in state.items()} == pytest.approx(seeds)
    assert all(a.path == () and a.seed == k for k, a in state.items())
    unknown = personalised_pagerank(seeds, [edge("a", "x", "NO_SUCH_TYPE")], {"a": 1, "x": 1}, ExpansionConfig())
    assert set(unknown) == set(seeds)  # an edge of no weight carries nothing


def test_a_hub_passes_on_only_the_share_of_its_edges_in_the_subgraph() -> None:
    # The seed is ABOUT a small entity (3 memories, all fetched) and a hub (500 memories, 3 fetched): a memory
    # behind the hub gets far less than one behind the small entity, as in spreading mode.
    edges = [edge("seed", "small"), edge("seed", "hub")]
    edges += [edge(f"s{i}", "small") for i in range(2)] + [edge(f"h{i}", "hub") for i in range(2)]
    bounded = personalised_pagerank({"seed": 1.0}, edges, degrees(edges, hub=500), ExpansionConfig())
    unbounded = personalised_pagerank({"seed": 1.0}, edges, degrees(edges), ExpansionConfig())
    assert bounded["h0"].value < bounded["s0"].value / 50
    assert unbounded["h0"].value == pytest.approx(unbounded["s0"].value)  # the same graph, no hub: symmetric
    assert bounded["seed"].value < unbounded["seed"].value  # the walk that left through the hub did not come back
    # a node whose degree is unknown (or lower than what was fetched) counts its fetched edges
    assert personalised_pagerank({"seed": 1.0}, edges, {}, ExpansionConfig())["s0"].value == pytest.approx(
        unbounded["s0"].value)


def test_deterministic_whatever_the_order_and_repeats_of_the_edges() -> None:
    rng = random.Random(5)
    nodes = [f"n{i:02d}" for i in range(40)]
    types = sorted(TYPE_WEIGHTS)
    edges = [edge(*pair(rng, nodes), rng.choice(types), round(rng.uniform(0.1, 1.0), 2)) for _ in range(120)]
    seeds = {n: round(rng.uniform(0.1, 1.0), 3) for n in nodes[:6]}
    degree = degrees(edges) | {n: 60 for n in nodes[30:]}
    first = personalised_pagerank(seeds, edges, degree, ExpansionConfig())
    again = personalised_pagerank(seeds, edges, degree, ExpansionConfig())
    shuffled = edges + edges[:30]
    rng.shuffle(shuffled)
    other = personalised_pagerank(dict(reversed(seeds.items())), shuffled, degree, ExpansionConfig())
    for state in (again, other):
        assert set(state) == set(first)
        for k, a in first.items():
            assert state[k].value == pytest.approx(a.value, rel=1e-9)
            assert (state[k].path, state[k].seed, state[k].hops) == (a.path, a.seed, a.hops), k
    assert sum(1 for a in first.values() if a.path) > 20


def test_the_path_is_the_strongest_single_walk_from_a_seed() -> None:
    # to "t": directly from the weak seed w, or over two strong edges from the best seed s
    edges = [edge("s", "m", "SUPPORTS"), edge("m", "t", "SUPPORTS"), edge("w", "t", "RELATES_TO", 0.3),
             edge("w", "x", "SUPPORTS"), edge("x", "y", "SUPPORTS")]
    state = personalised_pagerank({"s": 1.0, "w": 0.1}, edges, degrees(edges), ExpansionConfig())
    assert steps(state["t"].path) == [("s", "SUPPORTS", "m"), ("m", "SUPPORTS", "t")]
    assert state["t"].seed == "s"
    # its mass: a * p(s) * ((1 - a) * P(s->m)) * ((1 - a) * P(m->t)), in value units (* sum(seeds) / a)
    a = 0.5
    assert state["t"].best_in == pytest.approx(1.0 * (1 - a) * 1.0 * (1 - a) * 0.5)
    stronger = personalised_pagerank({"s": 0.1, "w": 1.0}, edges, degrees(edges), ExpansionConfig())
    assert steps(stronger["t"].path) == [("w", "RELATES_TO", "t")]


def test_matches_networkx_pagerank_where_no_walk_leaves_the_subgraph() -> None:
    nx = pytest.importorskip("networkx")
    rng = random.Random(9)
    nodes = [f"n{i}" for i in range(25)]
    edges = [edge(nodes[i], nodes[i + 1], "FOLLOWS") for i in range(24)]  # connected: no dangling node
    edges += [edge(*pair(rng, nodes), rng.choice(["SUPPORTS", "ABOUT", "SIMILAR_TO"]), rng.uniform(0.2, 1))
              for _ in range(40)]
    seeds = {"n3": 1.0, "n17": 0.6, "n20": 0.2}
    for alpha in (0.15, 0.5, 0.8):
        config = ExpansionConfig(ppr_alpha=alpha)
        state = personalised_pagerank(seeds, edges, degrees(edges), config)
        graph = nx.MultiGraph()
        for e in edges:
            graph.add_edge(e.source, e.target, weight=TYPE_WEIGHTS[e.type] * e.weight)
        want = nx.pagerank(graph, alpha=1 - alpha, personalization=seeds, weight="weight", tol=1e-13,
                           max_iter=1000)
        scale = sum(seeds.values()) / alpha
        assert {k: a.value for k, a in state.items()} == pytest.approx({k: v * scale for k, v in want.items()},
                                                                     rel=1e-6)


def test_no_mass_to_spread_leaves_the_seeds_as_they_are() -> None:
    assert personalised_pagerank({"a": 0.0}, [edge("a", "b")], {}, ExpansionConfig())["a"].value == 0.0
    state = personalised_pagerank({"a": 1.0}, [edge("a", "b")], {}, ExpansionConfig(ppr_alpha=0.0))
    assert set(state) == {"a"}
    assert math.isclose(state["a"].value, 1.0)


def test_spreading_stays_the_default_mode() -> None:
    options = SearchOptions(namespaces=("ns",))
    assert options.expansion_mode is ExpansionMode.SPREADING
    assert SearchOptions(namespaces=("ns",), expansion_mode="ppr").expansion_mode is ExpansionMode.PPR  # type: ignore[arg-type]
