"""Reading what may be merged: a namespace's active memories of the consolidated kinds with their embeddings, in
pages (``cypher/consolidation/candidates``), each one verified (a memory whose signature fails is never merged)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.consolidation.cluster import Candidate
from graphmem.models import MemoryKind
from graphmem.store import Store
from graphmem.store.records import memory_from_map


@dataclass(frozen=True)
class Candidates:
    items: list[Candidate]
    unverified: int
    """Memories left out because their signature failed (counted and logged by the store's integrity)."""


async def read_candidates(store: Store, namespace: str, kinds: Sequence[MemoryKind], *, page: int,
                          now: datetime) -> Candidates:
    items: list[Candidate] = []
    unverified = 0
    after = ""
    while True:
        rows = await store.read("consolidation/candidates", namespace=namespace, kinds=[k.value for k in kinds],
                                after=after, limit=page, now=now)
        for row in rows:
            if not store.integrity.passed(row["memory"]):
                unverified += 1
                continue
            vector = np.asarray(row["embedding"], dtype=np.float32)
            norm = float(np.linalg.norm(vector))
            items.append(Candidate(memory=memory_from_map(row["memory"]),
                                   vector=vector / norm if norm > 0 else vector, provenance=int(row["provenance"])))
        if len(rows) < page:
            return Candidates(items, unverified)
        after = str(rows[-1]["memory"]["id"])


__all__ = ["Candidates", "read_candidates"]
