"""Relation expansion by personalised PageRank over the local subgraph around the seeds (pure).

A walker starts at a seed (chosen in proportion to the seed's fused activation), and at every step either restarts
at a seed (probability ``alpha``, ``ExpansionConfig.ppr_alpha``) or follows one of the current node's edges, in
proportion to ``type_weight * edge_weight`` (both directions, the weights of ``expansion.TYPE_WEIGHTS``). A node's
score is the share of its time the walker spends there: ``pi = alpha * p + (1 - alpha) * P^T pi``, iterated with
scipy.sparse until it moves by less than ``TOLERANCE``. On the LoCoMo subgraphs (~300 nodes, ~470 edges) this and
the paths took 11.7 / 21.6 ms p50 / p95 against 25.3 / 45.0 for networkx's ``pagerank`` without paths, which builds
a Python graph first (``benchmarks/locomo_ppr.py``, a loaded 2-core box; benchmarks/README.md).

The subgraph is what the expansion's walk fetched (``retrieval.walk``): the seeds' strongest edges, and those of the
entities and turns they reach, hubs not walked past. A node's edges outside it are not lost from the arithmetic: a
step divides by the node's whole degree (its fetched edges' mean weight times its degree), so the share of the walk
that would leave the subgraph leaves it (and does not come back). That bounds hubs as spreading mode bounds them:
an entity that hundreds of memories are ABOUT passes on only the small share of its edges the walk fetched.

Scale: a node's ``Activation.value`` is ``pi * sum(seed activations) / alpha``, so the restart part of a seed's
mass is exactly its fused activation (the best seed 1.0, as in spreading mode), a seed without edges keeps just
that, and what came over edges (``value`` minus the seed's own activation, ``ScoreParts.expansion``) is in the same
unit: one step from the best seed passes ``(1 - alpha) * w / W(seed)``, where spreading passes
``w * decay / degree ** beta``. The fitted formula weight of that term (``FormulaWeights.graph``) keeps its
meaning; its value was fitted on spreading mode's figures.

Every node reached keeps the strongest single way in from a seed: the path whose walk carries the most mass
(``alpha * p(seed) * prod((1 - alpha) * P(step))``, a max-product path: scipy.sparse.csgraph's Dijkstra on
``-log``). That path is the result's explanation, as spreading mode's strongest incoming pass is; ``Activation.hops``
is its number of edges.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from graphmem.retrieval.expansion import Activation, Edge, ExpansionConfig, seed_state

TOLERANCE = 1e-10
"""Power iteration stops when the L1 change of the mass falls below this."""
MAX_ITERATIONS = 500
"""An upper bound (a walk that never leaves the subgraph converges in ~35 iterations at alpha 0.5, ~140 at 0.15)."""


def local_edges(edges: Iterable[Edge], config: ExpansionConfig) -> dict[Edge, float]:
    """The distinct edges that carry a walk (type weight * edge weight > 0, no self-loops) with that weight, in a
    canonical order (the result does not depend on the order the walk fetched them in)."""
    unique = {(e.source, e.target, e.type, e.weight, e.source_id or "", e.target_id or ""): e for e in edges}
    out: dict[Edge, float] = {}
    for key in sorted(unique):
        e = unique[key]
        w = config.type_weights.get(e.type, 0.0) * e.weight
        if e.source != e.target and w > 0.0 and math.isfinite(w):
            out[e] = w
    return out


def personalised_pagerank(seeds: Mapping[str, float], edges: Iterable[Edge], degree: Mapping[str, int],
                          config: ExpansionConfig) -> dict[str, Activation]:
    """The activation of every node of the subgraph, seeds included: ``seeds`` by node key with their fused
    activations, ``edges`` the subgraph (duplicates allowed), ``degree`` every node's whole degree in the graph."""
    total = sum(a for a in seeds.values() if a > 0)
    weighted = local_edges(edges, config)
    alpha = config.ppr_alpha
    if total <= 0 or not 0.0 < alpha <= 1.0:
        return seed_state(seeds)
    listed = list(weighted)
    nodes = sorted(set(seeds).union(*((e.source, e.target) for e in listed)))
    index = {k: i for i, k in enumerate(nodes)}
    n, m = len(nodes), len(listed)
    one = np.fromiter((index[e.source] for e in listed), dtype=np.int64, count=m)
    other = np.fromiter((index[e.target] for e in listed), dtype=np.int64, count=m)
    src, dst = np.concatenate([one, other]), np.concatenate([other, one])  # each edge both ways
    w = np.tile(np.fromiter(weighted.values(), dtype=np.float64, count=m), 2)
    strength = np.bincount(src, weights=w, minlength=n)
    fetched = np.bincount(src, minlength=n).astype(np.float64)
    whole = np.fromiter((degree.get(k, 0) for k in nodes), dtype=np.float64, count=n)
    # a node's whole weighted degree: its fetched edges' mean weight times its degree (at least its fetched edges)
    out_weight = strength * np.maximum(whole / np.maximum(fetched, 1.0), 1.0)
    step = w / out_weight[src] if m else w
    p = np.zeros(n)
    for k, a in seeds.items():
        p[index[k]] = max(a, 0.0) / total
    mass = iterate(sparse.csr_matrix((step, (dst, src)), shape=(n, n)), p, alpha)  # column u: u's ways out
    carried, before = strongest_ways(n, src, dst, (1.0 - alpha) * step, alpha * p)
    scale = total / alpha
    state = seed_state(seeds)
    paths: dict[int, tuple[tuple[Edge, ...], int]] = {}  # the edges of a node's way in, and where it starts
    masses, ways, arc_from, weights = mass.tolist(), before.tolist(), src.tolist(), carried.tolist()
    for i in np.argsort(-carried, kind="stable").tolist():  # a node's way in comes after its predecessor's
        if weights[i] <= 0.0:
            break
        arc = ways[i]
        if arc < 0:
            paths[i] = ((), i)
        else:
            path, first = paths[arc_from[arc]]
            paths[i] = ((*path, listed[arc % m]), first)
        node = state.setdefault(nodes[i], Activation())
        node.value = masses[i] * scale
        if nodes[i] not in seeds:
            node.path, first = paths[i]
            node.best_in, node.seed, node.hops = weights[i] * scale, nodes[first], len(node.path)
    return state


def iterate(transposed: sparse.csr_matrix, p: np.ndarray, alpha: float) -> np.ndarray:
    """``pi = alpha * p + (1 - alpha) * P^T pi`` by power iteration from ``p``."""
    mass = p.copy()
    for _ in range(MAX_ITERATIONS):
        nxt = alpha * p + (1.0 - alpha) * (transposed @ mass)
        moved = float(np.abs(nxt - mass).sum())
        mass = nxt
        if moved < TOLERANCE:
            break
    return np.asarray(mass, dtype=np.float64)


def strongest_ways(n: int, src: np.ndarray, dst: np.ndarray, prob: np.ndarray,
                   starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the mass of the strongest single walk to it (0: none), and the arc (an index into ``src``/``dst``)
    its last step took (-1: it starts there). Dijkstra (scipy.sparse.csgraph) over ``-log`` of each step's
    probability, from a root joined to every node at ``-log(its restart mass)``; of parallel arcs the likeliest,
    ties to the first (the arcs come in canonical order, so the ways are deterministic)."""
    arcs = np.flatnonzero(prob > 0.0)
    cost = -np.log(prob[arcs])
    order = arcs[np.lexsort((arcs, cost, dst[arcs], src[arcs]))]  # by pair, the likeliest first
    pair = src[order] * n + dst[order]
    keep = order[np.concatenate([[True], pair[1:] != pair[:-1]])] if len(order) else order
    begin = np.flatnonzero(starts > 0.0)
    rows = np.concatenate([src[keep], np.full(len(begin), n)])
    cols = np.concatenate([dst[keep], begin])
    # every way from the root takes exactly one start arc: + 1 keeps those costs above 0 (a 0 would be no arc)
    costs = np.concatenate([np.maximum(-np.log(prob[keep]), 1e-12), 1.0 - np.log(starts[begin])])
    graph = sparse.csr_matrix((costs, (rows, cols)), shape=(n + 1, n + 1))
    dist, pred = csgraph.dijkstra(graph, directed=True, indices=n, return_predecessors=True)
    dist, pred = dist[:n], pred[:n]
    carried = np.where(np.isfinite(dist), np.exp(1.0 - dist), 0.0)
    before = np.full(n, -1, dtype=np.int64)
    inner = np.flatnonzero((pred >= 0) & (pred < n))  # reached over an arc (not from the root, not unreached)
    if len(inner):
        kept = src[keep] * n + dst[keep]  # unique and sorted: keep is ordered by pair
        before[inner] = keep[np.searchsorted(kept, pred[inner] * n + inner)]
    return carried, before
