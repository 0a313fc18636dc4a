"""The batched reflection worker: reflects queued tasks when N have ended or the oldest has waited T seconds.

The queue is the tasks' ``reflection_status`` in Neo4j (``task/end`` sets it to pending), so pending work
survives a restart, and several API replicas can run a worker each: a task is claimed in a write
transaction (its locks taken before the queue is re-read: two workers never claim one task), and a claim whose
worker died is taken over after ``STALE_AFTER``. Whatever one task does (an error of any kind) is recorded on
that task; the worker goes on with the rest. A failure it cannot record (Neo4j went away during the task) ends
the batch: the worker keeps the error, and its next cycle, once Neo4j answers, records it and gives back every
task it still holds (a claim of its own whose commit it could not see included), so no task waits ``STALE_AFTER``
for a worker that is alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from graphmem.errors import GraphmemError
from graphmem.models import utcnow
from graphmem.reflection.service import ReflectionService, failure_text
from graphmem.store import Step, Store
from graphmem.store.records import native
from graphmem.store.store import Tx

log = logging.getLogger("graphmem.reflection.worker")
STALE_AFTER = timedelta(minutes=30)


def due(pending: int, oldest: datetime | None, *, now: datetime, batch_size: int, interval_s: float) -> bool:
    """Whether a batch should run now (pure)."""
    if pending <= 0:
        return False
    if pending >= batch_size:
        return True
    return oldest is not None and (now - oldest).total_seconds() >= interval_s


async def claim_tasks(store: Store, *, worker: str, limit: int, now: datetime, stale_before: datetime,
                      namespaces: Sequence[str] | None) -> list[dict[str, Any]]:
    """Claim up to ``limit`` queued tasks for ``worker`` in one transaction: lock the candidates first, then
    re-read their status under the locks (a concurrent claimer's commit is seen), so each task is claimed once.
    Returns the claimed tasks' ``{namespace, id}``."""
    token = uuid.uuid4().hex

    async def work(tx: Tx) -> list[dict[str, Any]]:
        locked = await tx.run("reflection/claim_lock", limit=limit, stale_before=stale_before, token=token,
                              namespaces=list(namespaces) if namespaces is not None else None)
        if not locked:
            return []
        return await tx.run("reflection/claim", rows=locked, now=now, stale_before=stale_before, worker=worker)

    return await store.transact("reflection/claim", work)


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
        self._cycle = asyncio.Lock()
        """One cycle at a time: between cycles the worker holds no claim (``_settle`` relies on it)."""
        self._owed: dict[tuple[str, str], str] = {}
        """Failed reflections the worker could not record (the store failed): (namespace, id) -> error."""
        self._unsettled = False
        """Whether a store error may have left tasks claimed by this worker (or failures unrecorded)."""

    async def run_once(self, *, force: bool = False) -> int:
        """Run one batch if one is due (or ``force``); returns how many tasks were reflected. First settles what
        an earlier store error left (``_settle``); raises GraphmemError while the store fails."""
        async with self._cycle:
            await self._settle()
            try:
                return await self._batch(force=force)
            except GraphmemError:  # the claim or a release may have committed unseen: settled next cycle
                self._unsettled = True
                raise

    async def _batch(self, *, force: bool) -> int:
        (row,) = await self.store.read("reflection/pending", namespaces=self.namespaces)
        pending, oldest = int(row["pending"]), native(row["oldest"])
        if not force and not due(pending, oldest, now=utcnow(), batch_size=self.settings.reflection_batch_size,
                                 interval_s=self.settings.reflection_interval_s):
            return 0
        now = utcnow()
        claimed = await claim_tasks(self.store, worker=self.name, limit=self.settings.reflection_batch_size,
                                    now=now, stale_before=now - STALE_AFTER, namespaces=self.namespaces)
        if not claimed:
            return 0
        self.stats.batches += 1
        done = 0
        for i, item in enumerate(claimed):
            if self._stopping.is_set():  # hand the rest back: another run (or replica) takes them
                await self._release(claimed[i:])
                break
            try:
                await self.reflection.reflect(item["namespace"], item["id"])
                done += 1
                self.stats.reflected += 1
                self.stats.recent = [*self.stats.recent[-9:], f"{item['namespace']}/{item['id']}"]
            except Exception as exc:  # any error of one task: recorded on it, the batch goes on
                self.stats.failed += 1
                self.stats.last_error = failure_text(exc)
                if not isinstance(exc, GraphmemError):
                    log.exception("reflection of %s/%s failed", item["namespace"], item["id"])
                if not await self._record(item["namespace"], item["id"], self.stats.last_error):
                    break  # the store failed: the rest stays claimed until the next cycle gives it back
        return done

    async def _record(self, namespace: str, task_id: str, error: str) -> bool:
        """Record a task's failure while this worker's claim holds (the service may have recorded it already);
        False when the store failed: the failure is kept for ``_settle``."""
        try:
            await self.reflection.mark_failed(namespace, task_id, error, worker=self.name)
        except GraphmemError as exc:
            self._owed[(namespace, task_id)] = error
            self._unsettled = True
            log.warning("reflection worker %s: could not record the failed reflection of %s/%s (%s); it is recorded,"
                        " and the batch's other tasks given back, once the store answers", self.name, namespace,
                        task_id, exc)
            return False
        return True

    async def _settle(self) -> None:
        """After a store error: record the failures it kept, then give back every task still claimed by this
        worker (between cycles it holds none). A task another worker took over meanwhile is left alone."""
        if not self._unsettled:
            return
        for (namespace, task_id), error in list(self._owed.items()):
            await self.reflection.mark_failed(namespace, task_id, error, worker=self.name)
            del self._owed[(namespace, task_id)]
        (released,) = await self.store.write([Step("reflection/release_worker", {"worker": self.name})])
        self._unsettled = False
        if released:
            log.info("reflection worker %s gave back %d task(s) it held when the store failed", self.name,
                     len(released))

    async def _release(self, rest: Sequence[dict[str, Any]]) -> None:
        await self.store.write([Step("reflection/release", {
            "rows": [{"namespace": r["namespace"], "id": r["id"]} for r in rest], "worker": self.name})])

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.run_once()
            except GraphmemError as exc:  # Neo4j away: try again at the next poll
                log.warning("reflection worker: %s", exc)
            except Exception:  # a bug must not end the worker: logged, and the next poll runs
                log.exception("reflection worker %s: batch failed", self.name)
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
            except TimeoutError:  # cancelled in a batch: what it claimed is given back below
                task.cancel()
                self._unsettled = True
        if self._unsettled:  # one last try; else its claims are taken over after STALE_AFTER
            try:
                async with self._cycle:
                    await self._settle()
            except GraphmemError as exc:
                log.warning("reflection worker %s stopped holding tasks it could not give back (%s): taken over "
                            "after %s", self.name, exc, STALE_AFTER)
