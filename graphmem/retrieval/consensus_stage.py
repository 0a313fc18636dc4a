"""The consensus stage of a search (``SearchOptions.consensus``): the ranked results that dissent from the
consistent majority about their subject (``retrieval.consensus``, A-MemGuard's no-LLM variant) are demoted, and
their score parts say why (``ScoreParts.dissent``). It judges a pool larger than ``k`` (``pool_size``), so that a
demoted memory can fall out of the first ``k`` and another take its place.

Before the vote, a result that restates the query word for word (``retrieval.echo``: how query-targeted poisons
make themselves found) goes after every result that does not, whatever its score: a demotion by ``factor`` left
such records in the first ``k`` (they are written to score highest on their question). It takes no vote, and no
part in the vote of the others."""

from __future__ import annotations

import math
from collections.abc import Sequence

from graphmem.retrieval.consensus import DEFAULT_CONFIG, ConsensusConfig, ConsensusItem, dissenters
from graphmem.retrieval.echo import echo
from graphmem.retrieval.types import SearchResult
from graphmem.store import Store

POOL_MIN = 20


def pool_size(k: int) -> int:
    return max(2 * k, POOL_MIN)


def echoing(results: Sequence[SearchResult], query: str,
            config: ConsensusConfig = DEFAULT_CONFIG) -> tuple[list[SearchResult], list[tuple[SearchResult, str]]]:
    """(the results that do not echo ``query``, the ones that do with the reason), orders kept."""
    kept: list[SearchResult] = []
    echoes: list[tuple[SearchResult, str]] = []
    for r in results:
        found = echo(query, r.memory.content, share=config.echo_share, min_words=config.echo_min_words)
        if found is None:
            kept.append(r)
        else:
            echoes.append((r, found.reason))
    return kept, echoes


def after(ranked: Sequence[SearchResult], echoes: Sequence[tuple[SearchResult, str]]) -> list[SearchResult]:
    """``ranked``, then the echoes in their order: each one's score the lower of its own and the last ranked
    result's, less 0.001 per place, so that scores still descend; ``parts.dissent`` says why."""
    floor = min((r.score for r in ranked), default=math.inf)
    moved = [r.model_copy(update={"score": round(min(r.score, floor) - 0.001 * place, 6),
                                  "parts": r.parts.model_copy(update={"dissent": reason})})
             for place, (r, reason) in enumerate(echoes, start=1)]
    return [*ranked, *moved]


async def demote_dissent(store: Store, results: Sequence[SearchResult], namespaces: Sequence[str],
                         config: ConsensusConfig = DEFAULT_CONFIG, query: str | None = None) -> list[SearchResult]:
    """``results`` (best first) with the dissenters' scores multiplied by ``config.factor``, in score order; with
    ``query``, the results echoing it first set apart (``echoing``) and put after all the others (``after``)."""
    if query is not None:
        kept, echoes = echoing(results, query, config)
        if echoes:
            return after(await demote_dissent(store, kept, namespaces, config), echoes)
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


__all__ = ["after", "demote_dissent", "echoing", "pool_size"]
