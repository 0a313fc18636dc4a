"""The candidates of a search, as both ways of finding them (one statement, or statement by statement) give
them to the ranking: memory, cosine, fused seed activation, activation received over edges, and the path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from graphmem.retrieval.expansion import Activation, path_steps
from graphmem.retrieval.types import Channel, PathStep

ChannelScores = dict[Channel, dict[str, float]]
"""Per seed channel, its scores by memory id, best first (the order gives the ranks)."""


@dataclass(frozen=True)
class Candidate:
    data: dict[str, Any]
    """The memory as ``retrieval/candidates`` maps it (nulls dropped), for ``memory_from_map``."""
    cosine: float
    """Cosine similarity to the query (0 without an embedding)."""
    fused: float = 0.0
    """The fused seed activation (the best seed 1.0); 0 for a memory only reached over edges."""
    received: float = 0.0
    """Activation that came over edges."""
    path: tuple[PathStep, ...] = ()
    """The strongest way in from a seed; empty for a seed."""
    seed_id: str | None = None
    seed_cosine: float | None = None
    """The cosine of the seed the path starts from (None: a seed, or its seed is not a candidate)."""
    entity_hits: int = 0
    """How many of the entities the query names this memory is ABOUT."""
    before: str | None = None
    """The memory this one FOLLOWS (the turn before it in its task), if any."""
    after: str | None = None
    """The memory that FOLLOWS this one, if any."""
    turns: tuple[str, ...] = ()
    """The turns it derives from (DERIVED_FROM)."""
    task: str | None = None
    """The task it came from (FROM_TASK)."""
    summary: bool = False
    """A task summary (``:Summary``): it leads to its task's memories (``retrieval.descend``)."""
    answer_kinds: tuple[str, ...] | None = None
    """The kinds of answer it holds, stored at write (``graph.answer_kinds``); None for a memory written before."""
    descended: bool = False
    """Brought by a summary from its task (``retrieval.descend``), not by a seed or the expansion."""


def memory_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """A ``retrieval/candidates`` memory map for ``memory_from_map``: its properties are named in the statement,
    so one a node lacks comes back as null; dropped, as ``m {.*}`` would not have had it (the model's default
    applies)."""
    return {k: v for k, v in data.items() if v is not None}


def cosine(index_score: float | None) -> float:
    """The vector index's cosine score, (1 + cos) / 2, back to the cosine."""
    return 2.0 * index_score - 1.0 if index_score is not None else 0.0


def graph_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """A candidate row's entity hits, FOLLOWS neighbours, source turns and answer kinds (both statements return them
    alike)."""
    return {"entity_hits": int(row.get("entity_hits") or 0), "before": row.get("before"), "after": row.get("after"),
            "turns": tuple(row.get("turns") or ()), "task": row.get("task"), "summary": bool(row.get("summary")),
            "answer_kinds": None if row.get("answer_kinds") is None else tuple(row["answer_kinds"])}


def from_statement(rows: list[dict[str, Any]], seeds: list[dict[str, Any]]) -> tuple[dict[str, Candidate],
                                                                                   ChannelScores]:
    """The candidates and channel scores of a ``retrieval/search`` row: its ``candidates`` (maybe only the best)
    and its ``seeds`` (all of them, with their hits)."""
    hits = [(int(h["rank"]), Channel(h["channel"]), s["id"], float(h["score"])) for s in seeds for h in s["hits"]]
    found: dict[str, Candidate] = {}
    for row in rows:
        data = memory_data(row["memory"])
        found[data["id"]] = Candidate(
            data=data, cosine=cosine(row["score"]), fused=float(row["fused"]), received=float(row["received"]),
            path=tuple(PathStep(source_id=s["source_id"], target_id=s["target_id"], type=s["type"],
                                weight=float(s["weight"])) for s in row["path"]),
            seed_id=row["seed_id"],
            seed_cosine=float(row["seed_cosine"]) if row["seed_cosine"] is not None else None,
            **graph_fields(row))
    scores: ChannelScores = {}
    for _, channel, mid, score in sorted(hits, key=lambda h: h[0]):
        scores.setdefault(channel, {})[mid] = score
    return found, scores


def from_steps(rows: list[dict[str, Any]], seeds: Mapping[str, float], state: Mapping[str, Activation],
               keys: Mapping[str, str], vector: Mapping[str, float]) -> dict[str, Candidate]:
    """The candidates of the stepwise path: ``retrieval/candidates`` rows and the expansion's activations.
    A vector seed's cosine is the index's score (``vector``), as in ``retrieval/search``: the index quantizes,
    so it may differ from the exact cosine in the third decimal."""
    by_id = {mid: state[k] for k, mid in keys.items() if k in state}
    found: dict[str, Candidate] = {}
    for row in rows:
        data = memory_data(row["memory"])
        mid = data["id"]
        act = by_id.get(mid)
        fused = seeds.get(mid, 0.0)
        reached = act is not None and mid not in seeds
        found[mid] = Candidate(
            data=data, cosine=cosine(vector.get(mid, row["score"])), fused=fused,
            received=(act.value - fused) if act is not None else 0.0,
            path=path_steps(act.path) if act is not None and reached else (),
            seed_id=keys.get(act.seed) if act is not None and act.seed and reached else None,
            **graph_fields(row))
    return {mid: replace(c, seed_cosine=found[c.seed_id].cosine) if c.seed_id in found else c
            for mid, c in found.items()}
