"""The life cycle sweeper: expires, archives and purges one namespace's memories by the policy.

Each step runs its statement a page at a time (``Settings.lifecycle_batch`` memories, ONE transaction per page)
until a page comes back short, so no transaction grows with the namespace and an interrupted sweep loses only
its current page (the next run finds the rest). A page that changed anything also bumps the namespace's search
cache version in the same transaction. The dry run runs the same statements with ``$apply`` false: the same
memories counted, nothing written.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graphmem.config import Settings
from graphmem.lifecycle.policy import LifecyclePolicy
from graphmem.models import utcnow
from graphmem.retrieval.cache import BUMP, NamespaceVersions, bump_step
from graphmem.service.tasks import check_namespace_arg
from graphmem.store.store import Row, Store, Tx

if TYPE_CHECKING:
    from graphmem.service.memory_service import MemoryService

EXPIRE, ARCHIVE, PURGE = "lifecycle/expire", "lifecycle/archive", "lifecycle/purge"


@dataclass(frozen=True)
class LifecycleReport:
    """What a sweep of one namespace did (or, ``dry_run``, would do)."""

    namespace: str
    now: datetime
    dry_run: bool
    expired: int = 0
    """Memories removed because their ``expires_at`` had passed."""
    archived: int = 0
    purged: int = 0
    """Deleted memories removed for good after the retention period."""
    entities: int = 0
    """Entities removed with the memories, because no other memory was about them (0 in a dry run)."""
    ms: float = 0.0
    ids: dict[str, list[str]] = field(default_factory=dict)
    """The memories of each step (``expired``, ``archived``, ``purged``), when asked for (the dry run's listing)."""

    def counts(self) -> dict[str, int]:
        return {"expired": self.expired, "archived": self.archived, "purged": self.purged, "entities": self.entities}


class Sweeper:
    def __init__(self, store: Store, settings: Settings, *, versions: NamespaceVersions | None = None,
                 policy: LifecyclePolicy | None = None) -> None:
        self.store = store
        self.settings = settings
        self.versions = versions or NamespaceVersions()
        """This process's search cache versions (``MemoryService.versions``), bumped after every write."""
        self.policy = policy or LifecyclePolicy.from_settings(settings)
        self.batch = settings.lifecycle_batch

    @classmethod
    def of(cls, service: MemoryService) -> Sweeper:
        """The sweeper of a service's store, settings and cache versions."""
        return cls(service.store, service.settings, versions=service.versions)

    async def run(self, namespace: str, *, now: datetime | None = None, dry_run: bool = False,
                  list_ids: bool = False) -> LifecycleReport:
        """Sweep ``namespace`` as of ``now`` (default: the current time): expired memories first, then archive,
        then purge. ``list_ids`` keeps the ids of every memory in the report."""
        check_namespace_arg(namespace)
        at = now or utcnow()
        started = time.perf_counter()
        steps: list[tuple[str, str, dict[str, Any]]] = [("expired", EXPIRE, {"now": at})]
        if self.policy.archive:
            steps.append(("archived", ARCHIVE, {"rules": self.policy.archive_rules(at), "now": at}))
        if (before := self.policy.purge_before(at)) is not None:
            steps.append(("purged", PURGE, {"before": before}))
        counts: dict[str, int] = {"expired": 0, "archived": 0, "purged": 0}
        entities = 0
        ids: dict[str, list[str]] = {}
        gone: list[str] = []  # a dry run's removals so far: its entity count treats them as removed
        for key, name, params in steps:
            after = ""
            while True:
                row = await self._page(name, namespace, {**params, "after": after, "limit": self.batch,
                                                         **({"gone": gone} if name != ARCHIVE else {})},
                                       apply=not dry_run)
                page = [str(i) for i in row["ids"]]
                if dry_run and name != ARCHIVE:
                    gone.extend(page)
                counts[key] += len(page)
                entities += int(row["entities"])
                if list_ids:
                    ids.setdefault(key, []).extend(page)
                if len(page) < self.batch:
                    break
                after = max(page)
        return LifecycleReport(namespace=namespace, now=at, dry_run=dry_run, entities=entities, ids=ids,
                               ms=round((time.perf_counter() - started) * 1000, 2), **counts)

    async def _page(self, name: str, namespace: str, params: dict[str, Any], *, apply: bool) -> Row:
        """One page of one statement, in a write transaction (a statement that may write cannot run in a read
        one, even when ``apply`` is false and it writes nothing)."""
        bump = bump_step(namespace)

        async def work(tx: Tx) -> Row:
            (row,) = await tx.run(name, namespace=namespace, apply=apply, **params)
            if apply and row["ids"]:  # something changed: every replica's cached searches of the namespace go
                await tx.run(BUMP, **bump.params)
            return row

        try:
            return await self.store.transact(name, work)
        finally:
            if apply:
                self.versions.bump(namespace)


__all__ = ["LifecycleReport", "Sweeper"]
