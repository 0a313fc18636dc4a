"""Graph construction on write (pure): the edges a batch of new memories adds besides its own provenance.

Every write (API, bulk import, reflection) runs the same construction, with no LLM call:

- ``ABOUT`` the entities found in the content (``graph.entities``: people, places, things, activities, dates;
  names normalised, so "Caroline" and "caroline's" meet), besides the entities the caller named;
- ``SIMILAR_TO`` the nearest active memories of the namespace at or above a cosine (weight = cosine): those
  stored before (found by the vector index before the transaction opens) and the earlier ones of the same batch;
- ``FOLLOWS`` between consecutive episodic memories of a task: written by ``cypher/graph/link_follows``, which
  finds the neighbours in time inside the transaction, so the rows here only name the memories.

Hubs stay bounded: a memory takes at most ``entity_limit`` entities and ``similar_k`` similar memories, and the
search does not walk on from entities with more than ``VIA_MAX_DEGREE`` edges.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from graphmem.config import Settings
from graphmem.graph.entities import entities_in, normalise_name
from graphmem.models import Memory, MemoryKind


@dataclass(frozen=True)
class GraphOptions:
    """Which edges a write builds (``Settings.graph_*``; the evaluation's ablation turns them off one by one)."""

    follows: bool = True
    entities: bool = True
    entity_limit: int = 8
    similar_k: int = 3
    similar_min: float = 0.6


def graph_options(settings: Settings) -> GraphOptions:
    return GraphOptions(follows=settings.graph_follows, entities=settings.graph_entities,
                        entity_limit=settings.graph_entity_limit, similar_k=settings.graph_similar_k,
                        similar_min=settings.graph_similar_min)


@dataclass(frozen=True)
class Neighbour:
    """A stored memory near a new one: its id and the cosine."""

    id: str
    cosine: float


@dataclass
class GraphRows:
    """The rows of the construction statements for one batch."""

    entity_rows: list[dict[str, Any]] = field(default_factory=list)
    similar_rows: list[dict[str, Any]] = field(default_factory=list)
    follow_rows: list[dict[str, Any]] = field(default_factory=list)


def content_entities(content: str, given: Sequence[str], limit: int) -> list[tuple[str, str]]:
    """``(name, kind)`` of the entities found in ``content`` that the caller did not name already: by key, or by the
    text read as a name (a turn opening "James: ..." has the extractor's plural-looking "jame"; the caller's
    speaker is "james")."""
    if limit <= 0:
        return []
    named = {normalise_name(g) for g in given}
    return [(e.name, e.kind) for e in entities_in(content, limit)
            if e.name not in named and normalise_name(e.surface, proper=True) not in named]


def similar_pairs(
    vectors: Sequence[Sequence[float]], stored: Mapping[int, Sequence[Neighbour]], ids: Sequence[str],
    *, k: int, min_cosine: float,
) -> list[tuple[int, str, float]]:
    """``(new index, target id, cosine)``: for each new memory (in batch order) its ``k`` nearest among the
    ``stored`` neighbours the index found and the batch's earlier memories, at or above ``min_cosine``."""
    if k <= 0 or not vectors:
        return []
    raw = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    matrix = raw / np.where(norms > 0, norms, 1.0)
    sims = matrix @ matrix.T
    out: list[tuple[int, str, float]] = []
    for i in range(len(ids)):
        best: dict[str, float] = {}
        for n in stored.get(i, ()):
            if n.id != ids[i] and n.cosine >= min_cosine:
                best[n.id] = max(best.get(n.id, -1.0), n.cosine)
        for j in (int(x) for x in np.flatnonzero(sims[i, :i] >= min_cosine)):
            if ids[j] != ids[i]:
                best[ids[j]] = max(best.get(ids[j], -1.0), float(sims[i, j]))
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        out += [(i, target, round(cos, 6)) for target, cos in ranked]
    return out


def graph_rows(
    created: Sequence[Memory], vectors: Sequence[Sequence[float]], given_entities: Sequence[Sequence[str]],
    task_ids: Sequence[str | None], stored: Mapping[int, Sequence[Neighbour]], options: GraphOptions, now: datetime,
) -> GraphRows:
    """The construction rows for the memories a batch creates (``created[i]`` with ``vectors[i]``, the entities its
    draft named and its task); ``stored`` are the index's neighbours per created index."""
    rows = GraphRows()
    for memory, given in zip(created, given_entities, strict=True):
        if options.entities:
            rows.entity_rows += [{"memory_id": memory.id, "namespace": memory.namespace, "name": name, "kind": kind,
                                  "at": now} for name, kind in content_entities(memory.content, given,
                                                                                 options.entity_limit)]
    for memory, task_id in zip(created, task_ids, strict=True):
        if options.follows and task_id and memory.kind is MemoryKind.EPISODIC:
            rows.follow_rows.append({"memory_id": memory.id, "namespace": memory.namespace, "at": now})
    ids = [m.id for m in created]
    for i, target, cos in similar_pairs(vectors, stored, ids, k=options.similar_k, min_cosine=options.similar_min):
        rows.similar_rows.append({"memory_id": ids[i], "namespace": created[i].namespace, "target_id": target,
                                  "weight": cos, "at": now})
    return rows


__all__ = ["GraphOptions", "GraphRows", "Neighbour", "content_entities", "graph_options", "graph_rows",
           "similar_pairs"]
