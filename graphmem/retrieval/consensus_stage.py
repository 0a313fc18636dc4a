"""The consensus stage of a search (``SearchOptions.consensus``): the ranked results that dissent from the
consistent majority about their subject (``retrieval.consensus``, A-MemGuard's no-LLM variant) are demoted, and
their score parts say why (``ScoreParts.dissent``). It judges a pool larger than ``k`` (``pool_size``), so that a
demoted memory can fall out of the first ``k`` and another take its place."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.retrieval.consensus import DEFAULT_CONFIG, ConsensusConfig, ConsensusItem, dissenters
from graphmem.retrieval.types import SearchResult
from graphmem.store import Store

POOL_MIN = 20


def pool_size(k: int) -> int:
    return max(2 * k, POOL_MIN)


async def demote_dissent(store: Store, results: Sequence[SearchResult], namespaces: Sequence[str],
                         config: ConsensusConfig = DEFAULT_CONFIG) -> list[SearchResult]:
    """``results`` (best first) with the dissenters' scores multiplied by ``config.factor``, in score order."""
    if len(results) < config.min_group:
        return list(results)
    rows = await store.read("retrieval/consensus_inputs", ids=[r.memory.id for r in results],
                            namespaces=list(namespaces), max_degree=config.max_subject_degree)
    found = {r["id"]: r for r in rows if r["embedding"] is not None}
    items = [ConsensusItem(id=r.memory.id, embedding=found[r.memory.id]["embedding"],
                           subjects=tuple(found[r.memory.id]["subjects"]), score=r.score)
             for r in results if r.memory.id in found]
    dissent = dissenters(items, config)
    if not dissent:
        return list(results)
    out = []
    for r in results:
        d = dissent.get(r.memory.id)
        if d is None:
            out.append(r)
            continue
        out.append(r.model_copy(update={"score": round(r.score * d.factor, 6),
                                        "parts": r.parts.model_copy(update={"dissent": d.reason})}))
    return sorted(out, key=lambda r: (-r.score, r.memory.id))


__all__ = ["demote_dissent", "pool_size"]
