"""The one database read of graph construction: the nearest stored memories of new ones (for SIMILAR_TO), run
before the write transaction opens. Used by the write path and by ``db rebuild-graph``."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.graph.construct import GraphOptions, Neighbour
from graphmem.models import Memory, Vector
from graphmem.retrieval.oversample import deepening
from graphmem.service.planning import cosine_from_index_score, index_score_from_cosine
from graphmem.store import Store
from graphmem.store.store import VECTOR_INDEX


async def stored_neighbours(store: Store, memories: Sequence[Memory], vectors: Sequence[Sequence[float]],
                            options: GraphOptions, similarity: str, now: object, *,
                            stored_already: bool = False) -> dict[int, list[Neighbour]]:
    """Per index into ``memories``: its nearest active memories of the namespace at or above
    ``options.similar_min``, best first (``stored_already``: the memories are in the index themselves, so one more
    row is asked for, the memory itself, which ``similar_pairs`` drops)."""
    if options.similar_k <= 0 or not memories:
        return {}
    extra = 1 if stored_already else 0
    per_row = options.similar_k + extra
    min_score = index_score_from_cosine(options.similar_min, similarity)
    rows = await deepening(
        lambda todo, k: store.read("graph/similar_candidates", index=VECTOR_INDEX, k=k, per_row=per_row, now=now,
                                   min_score=min_score, rows=todo),
        [{"idx": i, "embedding": Vector(v), "namespace": m.namespace}
         for i, (m, v) in enumerate(zip(memories, vectors, strict=True))],
        max(20, 5 * options.similar_k) + extra, per_row=per_row, found="similar")
    found = {r["idx"]: [Neighbour(c["id"], cosine_from_index_score(c["score"], similarity)) for c in r["similar"]]
             for r in rows}
    return {i: found[i] for i in sorted(found) if found[i]}


__all__ = ["stored_neighbours"]
