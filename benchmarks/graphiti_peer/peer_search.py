"""One graphiti search as the peer benchmark runs it (plain ``Graphiti.search``, or ``Graphiti.search_`` with a
private copy of a recipe), and the latency summaries of its report."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from graphiti_core import Graphiti
from graphiti_core.edges import EntityEdge
from graphiti_core.search import search_config_recipes
from graphiti_core.search.search_config import SearchConfig


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary_ms(seconds: Sequence[float]) -> dict[str, float]:
    ms = [s * 1000 for s in seconds]
    return {
        "p50_ms": round(percentile(ms, 0.5), 3),
        "p95_ms": round(percentile(ms, 0.95), 3),
        "mean_ms": round(statistics.fmean(ms), 3) if ms else float("nan"),
        "min_ms": round(min(ms), 3) if ms else float("nan"),
        "max_ms": round(max(ms), 3) if ms else float("nan"),
    }


def search_config(recipe: str | None, k: int, sim_min_score: float | None) -> SearchConfig | None:
    """None means plain ``Graphiti.search`` (EDGE_HYBRID_SEARCH_RRF); else a private copy of the named recipe."""
    if recipe is None and sim_min_score is None:
        return None
    config = getattr(search_config_recipes, recipe or "EDGE_HYBRID_SEARCH_RRF").model_copy(deep=True)
    config.limit = k
    if sim_min_score is not None:
        for scope in (config.edge_config, config.node_config, config.community_config):
            if scope is not None:
                scope.sim_min_score = sim_min_score
    return config


async def run_search(
    graphiti: Graphiti, query: str, group_id: str, k: int, config: SearchConfig | None
) -> list[EntityEdge]:
    edges: list[EntityEdge]
    if config is None:
        edges = await graphiti.search(query, group_ids=[group_id], num_results=k)
    else:
        edges = (await graphiti.search_(query, config=config, group_ids=[group_id])).edges
    return edges
