"""What a consolidation run found and did: per cluster its plan and outcome, and the run's counts."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from graphmem.consolidation.plan import ClusterPlan, MergedBy
from graphmem.models import MemoryKind


class Outcome(StrEnum):
    PLANNED = "planned"  # a dry run: nothing written
    MERGED = "merged"  # committed
    SKIPPED = "skipped"  # a member changed since the plan: the cluster is left as it is
    FAILED = "failed"  # its transaction failed: rolled back, the run went on


class ClusterReport(BaseModel):
    """One cluster: its members (best-supported first), the survivor and its text, why, and what happened."""

    model_config = ConfigDict(frozen=True)

    kind: MemoryKind
    member_ids: tuple[str, ...]
    contents: tuple[str, ...]
    kept_id: str
    survivor_id: str
    text: str
    merged_by: MergedBy
    reason: str
    confidence: float
    min_cosine: float
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    outcome: Outcome
    archived: tuple[str, ...] = ()
    """The members archived into the survivor (merged), or that would be (planned)."""
    error: str | None = None

    @classmethod
    def of(cls, plan: ClusterPlan, outcome: Outcome, error: str | None = None) -> ClusterReport:
        return cls(kind=plan.kind, member_ids=plan.member_ids, contents=plan.contents, kept_id=plan.kept_id,
                   survivor_id=plan.survivor_id, text=plan.text, merged_by=plan.merged_by, reason=plan.reason,
                   confidence=plan.confidence, min_cosine=plan.min_cosine, valid_from=plan.valid_from,
                   valid_until=plan.valid_until, outcome=outcome, archived=plan.archived, error=error)


class ConsolidationReport(BaseModel):
    """A run over one namespace. ``clusters`` counts the clusters found (after the key-detail split), ``merged``
    those committed, ``archived`` the members archived into their survivors."""

    model_config = ConfigDict(frozen=True)

    namespace: str
    dry_run: bool
    eps: float
    kinds: tuple[MemoryKind, ...]
    candidates: int
    groups: int
    """DBSCAN groups before the key-detail split."""
    split_off: int
    """Memories of those groups left on their own by the split (other details, or not near the kept one)."""
    clusters: int
    merged: int
    archived: int
    skipped: int
    failed: int
    llm_calls: int
    llm_fallbacks: int
    """Clusters the LLM was asked about but whose best-supported member was kept (bad answer, or no LLM)."""
    seconds: float
    plans: tuple[ClusterReport, ...]

    def counts(self) -> dict[str, int]:
        return {"candidates": self.candidates, "clusters": self.clusters, "merged": self.merged,
                "archived": self.archived, "skipped": self.skipped, "failed": self.failed,
                "llm_calls": self.llm_calls, "llm_fallbacks": self.llm_fallbacks}

    def lines(self) -> list[str]:
        """The report as text: one block per cluster, then the counts (``graphmem consolidate``)."""
        out: list[str] = []
        for i, c in enumerate(self.plans, 1):
            survivor = "kept" if c.merged_by is MergedBy.KEPT else "new"
            out.append(f"cluster {i} [{c.kind.value}, {c.outcome.value}] survivor {c.survivor_id} ({survivor}, "
                       f"confidence {c.confidence:.3f}, min cosine {c.min_cosine:.3f})")
            out.append(f"  text: {c.text}")
            out += [f"  {'*' if m == c.kept_id else '-'} {m}: {text}" for m, text in zip(c.member_ids, c.contents,
                                                                                       strict=True)]
            out.append(f"  reason: {c.reason}")
            if c.error:
                out.append(f"  error: {c.error}")
        done = (f"would merge {self.clusters}, archiving {sum(len(c.archived) for c in self.plans)} "
                "(dry run: nothing written)" if self.dry_run else
                f"merged {self.merged}, archived {self.archived}, skipped {self.skipped}, failed {self.failed}")
        out.append(f"{self.namespace}: {self.candidates} candidates ({', '.join(k.value for k in self.kinds)}), "
                   f"eps {self.eps:g}: {self.clusters} clusters ({self.groups} DBSCAN groups, {self.split_off} split "
                   f"off by key details), {done}, LLM calls {self.llm_calls} ({self.llm_fallbacks} fell back), "
                   f"{self.seconds:.1f}s")
        return out


__all__ = ["ClusterReport", "ConsolidationReport", "Outcome"]
