"""GraphQL types of consolidation: what one run found, planned and did."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.api import enums as _enums  # noqa: F401  (registers the enums first)
from graphmem.consolidation import ClusterReport, ConsolidationReport
from graphmem.models import MemoryKind


@strawberry.type(name="ConsolidatedMember", description="A member of a cluster: one of the memories that say the "
                                                        "same thing.")
class Member:
    id: strawberry.ID
    content: str
    kept: bool = strawberry.field(description="The best-supported member (survives with its text without an LLM).")


@strawberry.type(name="ConsolidationCluster",
                 description="Memories that say the same thing, and what consolidation does (or did) with them.")
class Cluster:
    kind: MemoryKind
    members: list[Member] = strawberry.field(description="Best-supported first.")
    survivor_id: str = strawberry.field(description="The memory that remains: the kept member, or a new memory with "
                                                    "the LLM's merged text.")
    merged_by: str = strawberry.field(description="kept | llm")
    text: str = strawberry.field(description="The survivor's content.")
    reason: str
    confidence: float = strawberry.field(description="The survivor's confidence after the merge.")
    min_cosine: float = strawberry.field(description="The lowest cosine of a member to the kept one.")
    valid_from: datetime | None
    valid_until: datetime | None
    archived: list[str] = strawberry.field(description="Members archived into the survivor (MERGED_INTO), or that "
                                                       "would be in a dry run.")
    outcome: str = strawberry.field(description="planned (dry run) | merged | skipped (a member changed since the "
                                                "plan) | failed (rolled back)")
    error: str | None

    @classmethod
    def from_domain(cls, c: ClusterReport) -> Cluster:
        return cls(kind=c.kind, members=[Member(id=strawberry.ID(i), content=t, kept=i == c.kept_id)
                                         for i, t in zip(c.member_ids, c.contents, strict=True)],
                   survivor_id=c.survivor_id, merged_by=c.merged_by.value, text=c.text, reason=c.reason,
                   confidence=c.confidence, min_cosine=c.min_cosine, valid_from=c.valid_from,
                   valid_until=c.valid_until, archived=list(c.archived), outcome=c.outcome.value, error=c.error)


@strawberry.type(name="ConsolidationReport", description="A consolidation run over one namespace.")
class Report:
    namespace: str
    dry_run: bool = strawberry.field(description="True: only planned, nothing written (no LLM call).")
    eps: float = strawberry.field(description="DBSCAN's eps (cosine distance) the clusters were found with.")
    kinds: list[MemoryKind]
    candidates: int = strawberry.field(description="Active memories of those kinds that were looked at.")
    groups: int = strawberry.field(description="DBSCAN groups before the key-detail split.")
    split_off: int = strawberry.field(description="Memories of those groups left alone because a key detail "
                                                  "(number, name, negation, time word) differs.")
    clusters: list[Cluster]
    merged: int
    archived: int
    skipped: int
    failed: int
    llm_calls: int
    llm_fallbacks: int = strawberry.field(description="Clusters whose LLM answer was not usable: their best-supported "
                                                      "member was kept instead.")
    seconds: float

    @classmethod
    def from_domain(cls, r: ConsolidationReport) -> Report:
        return cls(namespace=r.namespace, dry_run=r.dry_run, eps=r.eps, kinds=list(r.kinds), candidates=r.candidates,
                   groups=r.groups, split_off=r.split_off, clusters=[Cluster.from_domain(c) for c in r.plans],
                   merged=r.merged, archived=r.archived, skipped=r.skipped, failed=r.failed, llm_calls=r.llm_calls,
                   llm_fallbacks=r.llm_fallbacks, seconds=r.seconds)
