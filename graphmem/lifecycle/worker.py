"""The maintenance worker: runs per-namespace jobs (the life cycle sweep, consolidation) on their intervals.

Its state is in Neo4j, one ``(:Maintenance {namespace, job})`` node per namespace and job (``next_due``,
``last_run_at``, a lease: ``claimed_by``, ``lease_until``), so several API replicas can run a worker each: a job is
claimed in one write transaction (its lock taken before it is re-read: two workers never hold one job), its lease
is renewed while it runs, and a job whose worker died is taken over once the lease has run out; nothing is lost,
as every job is idempotent and resumable (it only finds what is still to do). Whatever one job does (an error of
any kind) is recorded on its node, logged and counted; the worker goes on with the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from graphmem.config import Settings
from graphmem.errors import GraphmemError
from graphmem.models import utcnow
from graphmem.store import Step, Store
from graphmem.store.records import native
from graphmem.store.store import Tx

log = logging.getLogger("graphmem.lifecycle.worker")

Job = Callable[[str], Awaitable[Mapping[str, int]]]
"""One maintenance job of one namespace: runs it, returns what it counted (e.g. ``{"archived": 3}``)."""
Observer = Callable[[str, str, Mapping[str, int]], None]
"""Called after every run with (job, outcome: ok or error, counts): the metrics."""
MAX_ERROR_CHARS = 500
STOP_GRACE_S = 30.0
"""How long ``stop`` waits for the job that runs; then it is cancelled (its lease runs out, another run redoes it)."""


@dataclass(frozen=True)
class JobSpec:
    name: str
    run: Job
    interval_s: float
    """Between two runs of the job in one namespace (0: never)."""


@dataclass(frozen=True)
class JobRun:
    namespace: str
    job: str
    ok: bool
    counts: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
    ms: float = 0.0
    recorded: bool = True
    """False when the lease was taken over while the job ran (it outlived its lease): the new holder records."""


def next_due(finished: datetime, *, interval_s: float, ok: bool, retry_s: float) -> datetime:
    """When a job is due again (pure): its interval after a run, sooner (``retry_s``) after a failure."""
    return finished + timedelta(seconds=interval_s if ok else min(interval_s, retry_s))


async def ensure_jobs(store: Store, rows: Sequence[Mapping[str, str]], *, now: datetime) -> int:
    """Make the Maintenance nodes that do not exist yet (due at ``now``); returns how many were made."""
    if not rows:
        return 0
    (result,) = await store.write([Step("lifecycle/maintenance_ensure", {"rows": list(rows), "now": now})])
    return int(result[0]["created"])


async def claim_jobs(store: Store, *, worker: str, rows: Sequence[Mapping[str, str]], now: datetime,
                     lease_until: datetime, limit: int = 1) -> list[dict[str, Any]]:
    """Claim up to ``limit`` of the due, unleased jobs among ``rows`` for ``worker``, in one transaction: lock the
    candidates first, then re-read them under the locks (a concurrent claimer's commit is seen), so each job is
    held by one worker at a time. Returns the claimed ``{namespace, job}``."""
    token = uuid.uuid4().hex

    async def work(tx: Tx) -> list[dict[str, Any]]:
        locked = await tx.run("lifecycle/maintenance_lock", rows=list(rows), now=now, limit=limit, token=token)
        if not locked:
            return []
        return await tx.run("lifecycle/maintenance_claim", rows=locked, now=now, worker=worker,
                            lease_until=lease_until)

    return await store.transact("lifecycle/maintenance_claim", work)


async def job_state(store: Store, namespaces: Sequence[str]) -> list[dict[str, Any]]:
    """The Maintenance nodes of ``namespaces`` (times as datetimes, counts decoded)."""
    rows = await store.read("lifecycle/maintenance_state", namespaces=list(namespaces))
    out = []
    for row in rows:
        job = {k: native(v) for k, v in row["job"].items()}
        raw = job.pop("last_counts_json", None)
        job["last_counts"] = json.loads(raw) if raw else None
        out.append(job)
    return out


@dataclass
class WorkerStats:
    runs: int = 0
    failed: int = 0
    last_error: str | None = None


class MaintenanceWorker:
    def __init__(self, store: Store, jobs: Sequence[JobSpec], settings: Settings, *,
                 namespaces: Sequence[str] | None = None, observer: Observer | None = None) -> None:
        self.store = store
        self.jobs = {spec.name: spec for spec in jobs}
        self.settings = settings
        self.namespaces = list(namespaces) if namespaces is not None else None
        """Only these namespaces (None: every namespace that holds memories)."""
        self.observer = observer
        self.poll_s = settings.maintenance_poll_s
        self.lease = timedelta(seconds=settings.maintenance_lease_s)
        self.name = f"maintenance-{uuid.uuid4().hex[:8]}"
        self.stats = WorkerStats()
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()

    async def run_once(self, *, now: datetime | None = None) -> list[JobRun]:
        """Run every job that is due (as of ``now``, default the current time), one claim at a time, each
        (namespace, job) at most once; returns what ran."""
        active = sorted(name for name, spec in self.jobs.items() if spec.interval_s > 0)
        if not active:
            return []
        skew = (now - utcnow()) if now is not None else timedelta(0)
        namespaces = self.namespaces
        if namespaces is None:
            namespaces = [str(r["namespace"]) for r in await self.store.read("graph/namespaces")]
        rows = [{"namespace": ns, "job": job} for ns in sorted(set(namespaces)) for job in active]
        await ensure_jobs(self.store, rows, now=utcnow() + skew)
        runs: list[JobRun] = []
        while rows and not self._stopping.is_set():
            at = utcnow() + skew
            claimed = await claim_jobs(self.store, worker=self.name, rows=rows, now=at, lease_until=at + self.lease)
            if not claimed:
                break
            item = claimed[0]
            rows = [r for r in rows if (r["namespace"], r["job"]) != (item["namespace"], item["job"])]
            runs.append(await self._run(str(item["namespace"]), str(item["job"]), skew))
        return runs

    async def _run(self, namespace: str, name: str, skew: timedelta) -> JobRun:
        spec = self.jobs[name]
        started = time.perf_counter()
        heartbeat = asyncio.create_task(self._renew(namespace, name, skew), name=f"{self.name}-lease")
        counts: Mapping[str, int] = {}
        error: str | None = None
        try:
            counts = dict(await spec.run(namespace))
        except Exception as exc:  # any error of one job: recorded on its node, the worker goes on
            error = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
            if isinstance(exc, GraphmemError):
                log.warning("maintenance %s of %s failed: %s", name, namespace, error)
            else:
                log.exception("maintenance %s of %s failed", name, namespace)
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
        ms = round((time.perf_counter() - started) * 1000, 2)
        ok = error is None
        self.stats.runs += 1
        if not ok:
            self.stats.failed += 1
            self.stats.last_error = error
        finished = utcnow() + skew
        due = next_due(finished, interval_s=spec.interval_s, ok=ok, retry_s=self.settings.maintenance_retry_s)
        (rows,) = await self.store.write([Step("lifecycle/maintenance_finish", {
            "namespace": namespace, "job": name, "worker": self.name, "at": finished, "ms": ms,
            "counts_json": json.dumps(dict(counts), sort_keys=True) if ok else None, "error": error,
            "next_due": due})])
        recorded = bool(rows[0]["recorded"])
        if self.observer is not None:
            self.observer(name, "ok" if ok else "error", counts)
        if not recorded:
            log.warning("maintenance %s of %s outlived its lease: another worker holds it now", name, namespace)
        return JobRun(namespace, name, ok, counts, error, ms, recorded)

    async def _renew(self, namespace: str, name: str, skew: timedelta) -> None:
        """Keep the lease while the job runs (every third of it): a live worker is never taken over."""
        every = self.lease.total_seconds() / 3
        while True:
            await asyncio.sleep(every)
            try:
                (rows,) = await self.store.write([Step("lifecycle/maintenance_renew", {
                    "namespace": namespace, "job": name, "worker": self.name,
                    "lease_until": utcnow() + skew + self.lease})])
                if not rows[0]["renewed"]:
                    log.warning("maintenance %s of %s: lease lost to another worker", name, namespace)
                    return
            except GraphmemError as exc:  # Neo4j away: the next beat tries again, the lease has time left
                log.warning("maintenance lease renewal: %s", exc)

    async def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                await self.run_once()
            except GraphmemError as exc:  # Neo4j away: try again at the next poll
                log.warning("maintenance worker: %s", exc)
            except Exception:  # a bug must not end the worker: logged, and the next poll runs
                log.exception("maintenance worker %s: poll failed", self.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), timeout=self.poll_s)

    def start(self) -> None:
        if self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self._loop(), name=self.name)
            log.info("maintenance worker %s started (%s)", self.name, ", ".join(
                f"{s.name} every {s.interval_s:.0f} s" for s in self.jobs.values() if s.interval_s > 0) or "no jobs")

    async def stop(self) -> None:
        """Stop after the job that runs now, or cancel it after ``STOP_GRACE_S``: its transaction rolls back, and
        once its lease has run out another worker (or the next start) takes the job (nothing is lost)."""
        self._stopping.set()
        if self._task is not None:
            task, self._task = self._task, None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(task, timeout=STOP_GRACE_S)  # cancels the task when the time is up


__all__ = ["Job", "JobRun", "JobSpec", "MaintenanceWorker", "claim_jobs", "ensure_jobs", "job_state", "next_due"]
