"""Planning the merge of one cluster (pure): who survives, with what text, confidence, validity and provenance.

Without an LLM the best-supported member survives with its own text (``cluster.support_key``). With one, a new
memory holds the LLM's merged text; its id comes from the sorted member ids, so a retried or repeated merge of the
same cluster writes the same node. Either way the others are archived with a ``MERGED_INTO`` edge to the
survivor, which inherits their edges, entities and provenance (``apply``).

Confidence: the kept member's, strengthened by each other member as the write path strengthens a memory that a
near-duplicate write hits (``memory/strengthen``: ``c += (1 - c) * alpha * c_repeat``). Merging is the dedupe the
write path could not do at the time (it looks only at stored memories above its own threshold), so a merged
cluster ends where the same writes deduplicated at once would have ended. The rule is a noisy-OR damped by
``dedupe_alpha`` (``1 - (1 - c_kept) * prod(1 - alpha * c_i)``): paraphrases of one source are not independent
evidence, which the plain noisy-OR (alpha = 1) would assume; it never exceeds 1 and never lowers the best.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from graphmem.consolidation.cluster import Cluster
from graphmem.models import MAX_TAGS, Memory, MemoryKind

SOURCE = "consolidation"


class MergedBy(StrEnum):
    KEPT = "kept"  # the best-supported member survives with its text
    LLM = "llm"  # a new memory with the LLM's merged text


def merged_id(namespace: str, member_ids: Iterable[str]) -> str:
    """The id of the memory that merges these members: the same members always give the same id."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"graphmem:consolidation:{namespace}:{','.join(sorted(member_ids))}").hex


def strengthen_factor(confidences: Iterable[float], alpha: float) -> float:
    """``prod(1 - alpha * c)``: what is left of the kept member's doubt after the others strengthened it."""
    return math.prod(1.0 - alpha * min(max(c, 0.0), 1.0) for c in confidences)


def combined_confidence(kept: float, others: Iterable[float], alpha: float) -> float:
    return min(1.0, 1.0 - (1.0 - kept) * strengthen_factor(others, alpha))


@dataclass(frozen=True)
class ClusterPlan:
    """What merging one cluster writes. ``member_ids`` in order of support (``kept_id`` first)."""

    namespace: str
    kind: MemoryKind
    member_ids: tuple[str, ...]
    contents: tuple[str, ...]
    content_hashes: tuple[str, ...]
    """Each member's hash when planned: a member changed since is not archived (the cluster is skipped)."""
    kept_id: str
    survivor_id: str
    text: str
    merged_by: MergedBy
    reason: str
    confidence: float
    """The survivor's confidence after the merge (``combined_confidence``)."""
    factor: float
    """``strengthen_factor`` of the members other than the kept one, applied to the survivor's stored value."""
    importance: float
    valid_from: datetime | None
    valid_until: datetime | None
    tags: tuple[str, ...]
    sources: tuple[str, ...]
    min_cosine: float
    added_access: int = 0
    """Access counts of the archived members, added to the survivor's (it answers for all of them now)."""
    added_reinforced: int = 0
    """The archived members' reinforcements, plus one for each of them."""
    last_accessed_at: datetime | None = None
    fallback: str | None = None
    """Why the LLM's text was not used (its answer failed, or the LLM was unreachable), if it was asked."""
    archived: tuple[str, ...] = ()
    """The members archived into the survivor (every member but the survivor)."""


def _union(values: Iterable[Iterable[str]], limit: int | None = None) -> tuple[str, ...]:
    out = tuple(dict.fromkeys(v for group in values for v in group))
    return out[:limit] if limit is not None else out


def utc(at: datetime | None) -> datetime | None:
    """``at`` with the standard library's UTC. A time read from Neo4j carries the driver's UTC zone, which Neo4j
    stores as a named zone when written back (``...Z[UTC]`` in ``toString``), a form the signed projections of
    search cannot read; a plain UTC offset is stored as the write path stores it."""
    return at.astimezone(UTC) if at is not None else None


def _validity(members: Sequence[Memory]) -> tuple[datetime | None, datetime | None]:
    """The widest validity: from the earliest start (valid_from, else created_at) to the latest end (open when any
    member's is)."""
    start = min(m.valid_from or m.created_at for m in members)
    ends = [m.valid_until for m in members]
    end = None if any(e is None for e in ends) else max(e for e in ends if e is not None)
    return utc(start), utc(end)


def plan_cluster(cluster: Cluster, *, namespace: str, alpha: float, text: str | None = None,
                 fallback: str | None = None) -> ClusterPlan:
    """The plan of ``cluster``: the kept member survives, or (``text`` given) a new memory with that text."""
    members = [c.memory for c in cluster.members]
    kept = members[0]
    survivor = kept.id if text is None else merged_id(namespace, (m.id for m in members))
    archived = [m for m in members if m.id != survivor]
    start, end = _validity(members)
    own_sources = kept.sources if text is None else (SOURCE,)
    n = len(members)
    reason = (f"{n} {cluster.kind.value} memories within cosine {cluster.min_cosine:.3f} of the best-supported one, "
              "with the same key details (numbers, names, negations, time words)")
    return ClusterPlan(
        namespace=namespace, kind=cluster.kind, member_ids=tuple(m.id for m in members),
        contents=tuple(m.content for m in members), content_hashes=tuple(m.content_hash or "" for m in members),
        kept_id=kept.id, survivor_id=survivor, text=text if text is not None else kept.content,
        merged_by=MergedBy.KEPT if text is None else MergedBy.LLM,
        reason=reason if fallback is None else f"{reason}; kept its text: {fallback}",
        confidence=round(combined_confidence(kept.confidence, (m.confidence for m in members[1:]), alpha), 6),
        factor=strengthen_factor((m.confidence for m in members[1:]), alpha),
        importance=max(m.importance for m in members), valid_from=start, valid_until=end,
        tags=_union((m.tags for m in [kept, *members]), MAX_TAGS),
        sources=_union([own_sources, *(m.sources for m in members)]),
        min_cosine=cluster.min_cosine,
        added_access=sum(m.access_count for m in archived),
        added_reinforced=sum(m.reinforced_count for m in archived) + len(archived),
        last_accessed_at=utc(max((m.last_accessed_at for m in members if m.last_accessed_at), default=None)),
        fallback=fallback, archived=tuple(m.id for m in archived),
    )


__all__ = ["SOURCE", "ClusterPlan", "MergedBy", "combined_confidence", "merged_id", "plan_cluster",
           "strengthen_factor"]
