"""Reading what may be merged: a namespace's active memories of the consolidated kinds with their embeddings, in
pages (``cypher/consolidation/candidates``), each one verified (a memory whose signature fails is never merged),
and each embedding checked (a memory whose embedding is no vector of the store's size is never merged either: one
such vector made clustering the whole namespace fail)."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.consolidation.cluster import Candidate, Matrix
from graphmem.models import MemoryKind
from graphmem.store import Store
from graphmem.store.records import memory_from_map

log = logging.getLogger("graphmem.consolidation")


@dataclass(frozen=True)
class Candidates:
    items: list[Candidate]
    unverified: int
    """Memories left out because their signature failed (counted and logged by the store's integrity)."""
    unusable: int = 0
    """Memories left out because their embedding is no vector of the store's size (logged here)."""


def unit_vector(raw: object, dimension: int | None) -> Matrix | None:
    """``raw`` as a float32 vector of unit length (a zero vector stays zero: it is near nothing); None when it is
    not ``dimension`` finite numbers (any size when None)."""
    with np.errstate(over="ignore", invalid="ignore"):
        try:
            vector = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError):
            return None
        if vector.ndim != 1 or vector.size == 0 or (dimension is not None and vector.size != dimension):
            return None
        norm = float(np.linalg.norm(vector))
    if not (np.isfinite(vector).all() and np.isfinite(norm)):
        return None
    unit: Matrix = vector / norm if norm > 0 else vector
    return unit


def usual_size(items: Sequence[Candidate]) -> int | None:
    """The size most of the vectors have (the larger one of a tie), for a store whose size is not configured."""
    sizes = Counter(len(c.vector) for c in items)
    return max(sizes, key=lambda size: (sizes[size], size)) if sizes else None


async def read_candidates(store: Store, namespace: str, kinds: Sequence[MemoryKind], *, page: int,
                          now: datetime, dimension: int | None = None) -> Candidates:
    """The candidates of ``namespace``; ``dimension``: the store's vector size (None: the one most of them have)."""
    items: list[Candidate] = []
    unverified = 0
    unusable: list[tuple[str, str]] = []
    after = ""
    while True:
        rows = await store.read("consolidation/candidates", namespace=namespace, kinds=[k.value for k in kinds],
                                after=after, limit=page, now=now)
        for row in rows:
            if not store.integrity.passed(row["memory"]):
                unverified += 1
                continue
            vector = unit_vector(row["embedding"], dimension)
            if vector is None:
                unusable.append((str(row["memory"]["id"]), _shape(row["embedding"])))
                continue
            items.append(Candidate(memory=memory_from_map(row["memory"]), vector=vector,
                                   provenance=int(row["provenance"])))
        if len(rows) < page:
            break
        after = str(rows[-1]["memory"]["id"])
    if dimension is None and (usual := usual_size(items)) is not None:
        unusable += [(c.memory.id, f"{len(c.vector)} items") for c in items if len(c.vector) != usual]
        items = [c for c in items if len(c.vector) == usual]
    if unusable:
        size = f"{dimension} finite numbers" if dimension is not None else "the size most have"
        log.warning("consolidation of %s leaves out %d %s whose embedding is no vector of %s (%s); "
                    "`graphmem db reembed` writes them again", namespace, len(unusable),
                    "memory" if len(unusable) == 1 else "memories", size,
                    ", ".join(f"{memory_id}: {shape}" for memory_id, shape in unusable[:5]))
    return Candidates(items, unverified, len(unusable))


def _shape(raw: object) -> str:
    return f"{len(raw)} items" if isinstance(raw, list) else type(raw).__name__


__all__ = ["Candidates", "read_candidates", "unit_vector", "usual_size"]
