"""The write path's one vector lookup: for each new embedding, the stored memories near it, read once before the
write transaction and kept for both uses, the near duplicates that dedupe may strengthen and the neighbours that
graph construction links SIMILAR_TO (``cypher/memory/nearest_stored.cypher``). One index search and one embedding
sent per draft, where a lookup per use took two of each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from graphmem.graph.construct import GraphOptions, Neighbour
from graphmem.models import MemoryDraft, Vector, trust_in, trust_of
from graphmem.retrieval.oversample import deepening
from graphmem.service.planning import Hit, cosine_from_index_score, index_score_from_cosine
from graphmem.store import Store
from graphmem.store.store import VECTOR_INDEX

DEDUPE_K = 20
"""Rows the vector index is first asked for per draft (more when the other namespaces' memories hide them)."""
DUPLICATES_PER_ROW = 5
"""Near duplicates kept per draft for the detail check."""


@dataclass
class Nearest:
    """What the lookup found, by index into the drafts."""

    duplicates: dict[int, list[Hit]] = field(default_factory=dict)
    """Near duplicates of the same kind at or above the dedupe threshold, best first: only memories that verify
    and that are trusted at least as much as the draft's writer (a trusted writer's words are never absorbed into
    a low-trust copy)."""
    neighbours: dict[int, list[Neighbour]] = field(default_factory=dict)
    """Active memories at or above ``similar_min``, best first, at most ``similar_k`` (for SIMILAR_TO)."""


async def nearest_stored(store: Store, drafts: Sequence[MemoryDraft], vectors: Sequence[Sequence[float]],
                         todo: Sequence[int], *, threshold: float, options: GraphOptions, similarity: str,
                         now: datetime) -> Nearest:
    """The stored memories near the drafts at ``todo`` (indexes into ``drafts``), from one index search each."""
    if not todo:
        return Nearest()
    similar_k = max(options.similar_k, 0)
    rows = await deepening(
        lambda rows_, k: store.read(
            "memory/nearest_stored", index=VECTOR_INDEX, k=k, rows=rows_, now=now,
            min_score=index_score_from_cosine(threshold, similarity), per_row=DUPLICATES_PER_ROW,
            similar_min=index_score_from_cosine(options.similar_min, similarity), similar_per_row=similar_k),
        [{"idx": i, "embedding": Vector(vectors[i]), "namespace": drafts[i].namespace, "kind": drafts[i].kind.value}
         for i in todo],
        max(DEDUPE_K, 5 * similar_k), per_row=DUPLICATES_PER_ROW, found="candidates",
        also=[("similar", "more_similar", similar_k)])
    found = Nearest()
    for r in rows:  # a row asked again comes later, with the deeper answer: the last one wins
        i = r["idx"]
        found.duplicates[i] = [
            Hit(c["id"], cosine_from_index_score(c["score"], similarity), c["content"]) for c in r["candidates"]
            if store.integrity.passed(c["signed"]) and trust_in(c["signed"]) >= trust_of(drafts[i])]
        found.neighbours[i] = [Neighbour(c["id"], cosine_from_index_score(c["score"], similarity))
                               for c in r["similar"]]
    found.duplicates = {i: hits for i, hits in found.duplicates.items() if hits}
    found.neighbours = {i: near for i, near in found.neighbours.items() if near}
    return found


__all__ = ["DEDUPE_K", "Nearest", "nearest_stored"]
