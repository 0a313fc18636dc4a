"""The life cycle policy (pure): which memories expire, are archived or purged at a given time.

The sweeper's statements (``cypher/lifecycle/*.cypher``) apply the same rules in Neo4j, with the cut-off times
computed here (``archive_rules``, ``purge_before``); the predicates below state them for one memory, so the policy
can be tested without a database and the statements against it.

- expired: any memory whose ``expires_at`` has passed (reads already treat it as gone); it is removed.
- archived: an active memory of a kind with an archive age, never accessed, below its kind's confidence threshold,
  whose last access (or creation) is older than the age: status ``archived`` (hidden from search, restorable).
- purged: a deleted memory whose deletion (its ``updated_at``, set by the delete) is older than the retention
  period: removed for good, with the entities only it was about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from graphmem.config import ARCHIVE_BELOW_CONFIDENCE, Settings
from graphmem.models import Memory, MemoryKind, MemoryStatus


@dataclass(frozen=True)
class ArchiveRule:
    """Archive memories of ``kind`` unused for ``after`` and below ``below_confidence``."""

    kind: MemoryKind
    after: timedelta
    below_confidence: float


@dataclass(frozen=True)
class LifecyclePolicy:
    working_ttl: timedelta | None = timedelta(hours=24)
    """Given to a working memory written without ``expires_at`` (None: it never expires); the write path applies
    it (``service.planning.plan_batch``)."""
    archive: tuple[ArchiveRule, ...] = field(default_factory=tuple)
    purge_after: timedelta | None = timedelta(days=30)
    """Retention of deleted memories (None: never purged)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> LifecyclePolicy:
        rules = tuple(
            ArchiveRule(kind, timedelta(days=days),
                        settings.archive_below_confidence.get(kind, ARCHIVE_BELOW_CONFIDENCE))
            for kind, days in sorted(settings.archive_after_days.items()))
        return cls(
            working_ttl=settings.working_ttl,
            archive=rules,
            purge_after=timedelta(days=settings.purge_after_days) if settings.purge_after_days > 0 else None,
        )

    def rule_for(self, kind: MemoryKind) -> ArchiveRule | None:
        return next((r for r in self.archive if r.kind is kind), None)

    # --- the parameters of the statements --------------------------------------------------------------
    def archive_rules(self, now: datetime) -> list[dict[str, Any]]:
        """``lifecycle/archive``'s ``$rules``: per kind, the last use before which a memory qualifies."""
        return [{"kind": r.kind.value, "before": now - r.after, "below": r.below_confidence} for r in self.archive]

    def purge_before(self, now: datetime) -> datetime | None:
        """Deleted before this time: purged (None: purging is off)."""
        return None if self.purge_after is None else now - self.purge_after

    # --- the same rules for one memory ------------------------------------------------------------------
    def expired(self, memory: Memory, now: datetime) -> bool:
        return memory.expires_at is not None and memory.expires_at <= now

    def archivable(self, memory: Memory, now: datetime) -> bool:
        rule = self.rule_for(memory.kind)
        if rule is None or memory.status is not MemoryStatus.ACTIVE or self.expired(memory, now):
            return False
        last_use = memory.last_accessed_at or memory.created_at
        return memory.access_count == 0 and memory.confidence < rule.below_confidence and last_use < now - rule.after

    def purgeable(self, memory: Memory, now: datetime) -> bool:
        before = self.purge_before(now)
        return before is not None and memory.status is MemoryStatus.DELETED and memory.updated_at < before


__all__ = ["ArchiveRule", "LifecyclePolicy"]
