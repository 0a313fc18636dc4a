"""The batched reflection worker: reflects queued tasks when N have ended or the oldest has waited T seconds.

The queue is the tasks' ``reflection_status`` in Neo4j (``task/end`` sets it to pending), so pending work
survives a restart, and several API replicas can run a worker each: a task is claimed in a write
transaction, and a claim whose worker died is taken over after ``STALE_AFTER``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from graphmem.errors import GraphmemError
from graphmem.models import utcnow
from graphmem.reflection.service import ReflectionService
from graphmem.store import Step
from graphmem.store.records import native

log = logging.getLogger("graphmem.reflection.worker")
STALE_AFTER = timedelta(minutes=30)


def due(pending: int, oldest: datetime | None, *, now: datetime, batch_size: int, interval_s: float) -> bool:
    """Whether a batch should run now (pure)."""
    if pending <= 0:
        return False
    if pending >= batch_size:
        return True
    return oldest is not None and (now - oldest).total_seconds() >= interval_s


@dataclass
class WorkerStats:
    batches: int = 0
    reflected: int = 0
    failed: int = 0
    last_error: str | None = None
    recent: list[str] = field(default_factory=list)


class ReflectionWorker:
    def __init__(self, reflection: ReflectionService, *, poll_s: float = 5.0,
                 namespaces: list[str] | None = None) -> None:
        self.reflection = reflection
        self.settings = reflection.settings
        self.store = reflection.store
        self.poll_s = poll_s
        self.namespaces = namespaces
        """Only tasks of these namespaces (None: all)."""
        self.name = f"worker-{uuid.uuid4().hex[:8]}"
        self.stats = WorkerStats()
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def run_once(self, *, force: bool = False) -> int:
        """Run one batch if one is due (or ``force``); returns how many tasks were reflected."""
        (row,) = await self.store.read("reflection/pending", namespaces=self.namespaces)
        pending, oldest = int(row["pending"]), native(row["oldest"])
        if not force and not due(pending, oldest, now=utcnow(), batch_size=self.settings.reflection_batch_size,
                                 interval_s=self.settings.reflection_interval_s):
            return 0
        now = utcnow()
        (claimed,) = await self.store.write([Step("reflection/claim", {
            "limit": self.settings.reflection_batch_size, "now": now, "stale_before": now - STALE_AFTER,
            "worker": self.name, "namespaces": self.namespaces})])
        if not claimed:
            return 0
        self.stats.batches += 1
        done = 0
        for i, item in enumerate(claimed):
            if self._stopping.is_set():  # hand the rest back: another run (or replica) takes them
                rest = claimed[i:]
                await self.store.write([Step("reflection/release", {
                    "ids": [r["id"] for r in rest], "namespaces_by_id": {r["id"]: r["namespace"] for r in rest}})])
                break
            try:
                await self.reflection.reflect(item["namespace"], item["id"])
                done += 1
                self.stats.reflected += 1
                self.stats.recent = [*self.stats.recent[-9:], f"{item['namespace']}/{item['id']}"]
            except GraphmemError as exc:  # recorded on the task by the service (pending again, or failed)
                self.stats.failed += 1
                self.stats.last_error = f"{type(exc).__name__}: {exc}"
        return done

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.run_once()
            except GraphmemError as exc:  # Neo4j away: try again at the next poll
                log.warning("reflection worker: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=self.poll_s)

    def start(self) -> None:
        if self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self._loop(), name=self.name)
            log.info("reflection worker %s started (batch %d, interval %.0f s)", self.name,
                     self.settings.reflection_batch_size, self.settings.reflection_interval_s)

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            task, self._task = self._task, None
            try:
                await asyncio.wait_for(task, timeout=self.settings.reflection_timeout_s + 10)
            except TimeoutError:
                task.cancel()
