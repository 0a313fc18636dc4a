"""The maintenance worker on the real Neo4j: its job state in (:Maintenance) nodes, claimed by one worker at a
time, a stale lease taken over, a live one renewed, a failing job recorded without stopping the next, and the
worker started by the app behind its setting."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Mapping
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import generate_latest

from graphmem.api.app import create_app
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import StoreUnavailableError
from graphmem.lifecycle.jobs import CONSOLIDATE, LIFECYCLE, default_jobs
from graphmem.lifecycle.worker import JobSpec, MaintenanceWorker, claim_jobs, ensure_jobs, job_state
from graphmem.models import MemoryDraft, MemoryKind, utcnow
from graphmem.security.tokens import hash_token, make_entry, new_token
from graphmem.service import MemoryService
from graphmem.store import Step, Store
from tests.integration.api_support import lifespan

HOUR = 3600.0


@pytest.fixture
async def namespaces(store: Store) -> AsyncIterator[list[str]]:
    """Three namespaces of this test alone, wiped afterwards (their Maintenance nodes with them)."""
    names = [f"t-{uuid.uuid4().hex[:12]}" for _ in range(3)]
    yield names
    for ns in names:
        await store.wipe_namespace(ns)


class Recorder:
    """Jobs that remember who ran what, when, and how many ran at once."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, str]] = []
        self.running: set[tuple[str, str]] = set()
        self.overlaps = 0

    def job(self, name: str, *, pause_s: float = 0.05, fail: BaseException | None = None) -> JobSpec:
        async def run(namespace: str) -> Mapping[str, int]:
            key = (namespace, name)
            if key in self.running:
                self.overlaps += 1
            self.running.add(key)
            try:
                await asyncio.sleep(pause_s)  # long enough for a second worker to try the same job meanwhile
                if fail is not None:
                    raise fail
                self.runs.append(key)
                return {"done": 1}
            finally:
                self.running.discard(key)

        return JobSpec(name, run, HOUR)


def worker(store: Store, settings: Settings, jobs: list[JobSpec], namespaces: list[str],
           **kw: Any) -> MaintenanceWorker:
    return MaintenanceWorker(store, jobs, settings, namespaces=namespaces, **kw)


async def states(store: Store, namespaces: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(j["namespace"], j["job"]): j for j in await job_state(store, namespaces)}


async def test_concurrent_claimers_hold_each_job_once(store: Store, namespaces: list[str]) -> None:
    rows = [{"namespace": ns, "job": job} for ns in namespaces for job in ("a", "b", "c")]
    now = utcnow()
    await asyncio.gather(*(ensure_jobs(store, rows, now=now) for _ in range(3)))  # made once by three workers
    assert len(await states(store, namespaces)) == 9
    claims = await asyncio.gather(*(claim_jobs(store, worker=f"w{i}", rows=rows, now=now,
                                               lease_until=now + timedelta(minutes=10), limit=9) for i in range(6)))
    claimed = sorted((c["namespace"], c["job"]) for claim in claims for c in claim)
    assert claimed == sorted((r["namespace"], r["job"]) for r in rows), "a job was claimed twice (or not at all)"
    again = await claim_jobs(store, worker="late", rows=rows, now=now, lease_until=now + timedelta(minutes=10),
                             limit=9)
    assert again == []  # all leased


async def test_two_workers_never_run_the_same_job_at_once(store: Store, migrated: Settings,
                                                          namespaces: list[str]) -> None:
    rec = Recorder()
    jobs = [rec.job("lifecycle"), rec.job("consolidate")]
    workers = [worker(store, migrated, jobs, namespaces) for _ in range(4)]
    t0 = utcnow()
    runs = await asyncio.gather(*(w.run_once(now=t0) for w in workers))
    expected = sorted((ns, job) for ns in namespaces for job in ("lifecycle", "consolidate"))
    assert sorted(rec.runs) == expected, "a job ran twice in one round (or not at all)"
    assert rec.overlaps == 0
    assert sum(len(r) for r in runs) == 6
    state = await states(store, namespaces)
    assert {(j["runs"], j["failures"], j.get("claimed_by"), j.get("lease_until")) for j in state.values()} == {
        (1, 0, None, None)}
    assert all(j["next_due"] >= t0 + timedelta(seconds=HOUR) for j in state.values())
    assert {j["last_counts"]["done"] for j in state.values()} == {1}

    assert await workers[0].run_once(now=t0 + timedelta(minutes=59)) == []  # not due yet
    later = await asyncio.gather(*(w.run_once(now=t0 + timedelta(minutes=61)) for w in workers))
    assert sum(len(r) for r in later) == 6
    assert sorted(rec.runs) == sorted(expected * 2)


async def test_a_stale_lease_is_taken_over_and_the_dead_worker_records_nothing(
        store: Store, migrated: Settings, namespaces: list[str]) -> None:
    rec = Recorder()
    ns = namespaces[0]
    rows = [{"namespace": ns, "job": "lifecycle"}]
    t0 = utcnow()
    lease = timedelta(seconds=migrated.maintenance_lease_s)
    await ensure_jobs(store, rows, now=t0)
    assert await claim_jobs(store, worker="dead", rows=rows, now=t0, lease_until=t0 + lease) == rows  # then crashes
    survivor = worker(store, migrated, [rec.job("lifecycle")], [ns])
    assert await survivor.run_once(now=t0 + lease - timedelta(seconds=1)) == []  # the lease still holds
    (run,) = await survivor.run_once(now=t0 + lease + timedelta(seconds=1))
    assert (run.ok, run.recorded) == (True, True)
    state = (await states(store, [ns]))[(ns, "lifecycle")]
    assert (state["runs"], state.get("claimed_by")) == (1, None)
    (late,) = await store.write([Step("lifecycle/maintenance_finish", {
        "namespace": ns, "job": "lifecycle", "worker": "dead", "at": utcnow(), "ms": 1.0, "counts_json": None,
        "error": "woke up", "next_due": t0})])
    assert late[0]["recorded"] == 0, "a worker whose lease was taken over overwrote the new holder's record"


async def test_a_failing_job_is_recorded_and_the_next_one_runs(store: Store, migrated: Settings,
                                                               namespaces: list[str]) -> None:
    rec = Recorder()
    seen: list[tuple[str, str, dict[str, int]]] = []
    jobs = [rec.job("a-broken", fail=RuntimeError("a bug in the job")),
            rec.job("b-neo4j", fail=StoreUnavailableError("Neo4j went away")), rec.job("c-fine")]
    w = worker(store, migrated, jobs, namespaces[:1], observer=lambda j, o, c: seen.append((j, o, dict(c))))
    t0 = utcnow()
    runs = await w.run_once(now=t0)
    assert sorted((r.job, r.ok) for r in runs) == [("a-broken", False), ("b-neo4j", False), ("c-fine", True)]
    assert rec.runs == [(namespaces[0], "c-fine")]
    assert (w.stats.runs, w.stats.failed) == (3, 2)
    state = await states(store, namespaces[:1])
    broken = state[(namespaces[0], "a-broken")]
    assert (broken["runs"], broken["failures"]) == (1, 1)
    assert broken["last_error"] == "RuntimeError: a bug in the job"
    retry = timedelta(seconds=min(HOUR, migrated.maintenance_retry_s))
    assert t0 + retry <= broken["next_due"] <= utcnow() + retry  # due again sooner than its interval
    assert state[(namespaces[0], "c-fine")].get("last_error") is None
    assert sorted((j, o) for j, o, _ in seen) == [("a-broken", "error"), ("b-neo4j", "error"), ("c-fine", "ok")]
    again = await w.run_once(now=t0 + retry + timedelta(seconds=5))  # the failed ones are due again, the fine not
    assert sorted(r.job for r in again) == ["a-broken", "b-neo4j"]
    assert (await states(store, namespaces[:1]))[(namespaces[0], "a-broken")]["failures"] == 2


async def test_a_live_lease_is_renewed_while_the_job_runs(store: Store, migrated: Settings,
                                                          namespaces: list[str]) -> None:
    rec = Recorder()
    ns = namespaces[0]
    slow = worker(store, migrated, [rec.job("lifecycle", pause_s=4.0)], [ns])
    slow.lease = timedelta(seconds=1.5)  # renewed every 0.5 s
    other = worker(store, migrated, [rec.job("lifecycle")], [ns])
    running = asyncio.create_task(slow.run_once())
    started = time.monotonic()
    while not rec.running:
        await asyncio.sleep(0.05)
    await asyncio.sleep(max(0.0, started + 2.5 - time.monotonic()))  # past the first lease's end
    assert await other.run_once() == [], "a job was taken over while its worker was alive and renewing"
    (run,) = await running
    assert (run.ok, run.recorded) == (True, True)
    assert rec.runs == [(ns, "lifecycle")]
    assert rec.overlaps == 0


async def test_only_configured_jobs_run(store: Store, migrated: Settings, service: MemoryService,
                                        namespaces: list[str]) -> None:
    jobs = default_jobs(service, migrated.model_copy(update={"maintenance_consolidate_interval_s": 0}))
    assert [j.name for j in jobs] == [LIFECYCLE]
    off = migrated.model_copy(update={"maintenance_lifecycle_interval_s": 0, "maintenance_consolidate_interval_s": 0})
    idle = worker(store, off, default_jobs(service, off), namespaces)
    assert await idle.run_once() == []
    assert await job_state(store, namespaces) == []
    assert [j.name for j in default_jobs(service, migrated)] == [LIFECYCLE, CONSOLIDATE]


async def test_the_default_jobs_run_a_real_namespace(store: Store, migrated: Settings, service: MemoryService,
                                                     namespace: str) -> None:
    """Both jobs on real data, no LLM: consolidation keeps the best-supported of two repeats, the life cycle
    removes an expired scratch memory; each run recorded with its counts."""
    await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="Caroline moved to Sweden in 2019."),
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content="In 2019 Caroline moved to Sweden."),
        MemoryDraft(namespace=namespace, kind=MemoryKind.WORKING, content="scratch: checking flights",
                    expires_at=utcnow() - timedelta(seconds=1))], dedupe=False)
    seen: list[tuple[str, str]] = []
    w = worker(store, migrated, default_jobs(service, migrated), [namespace],
               observer=lambda j, o, c: seen.append((j, o)))
    runs = {r.job: r for r in await w.run_once()}
    assert sorted(seen) == [(CONSOLIDATE, "ok"), (LIFECYCLE, "ok")], [r.error for r in runs.values()]
    assert runs[LIFECYCLE].counts["expired"] == 1
    state = await states(store, [namespace])
    assert state[(namespace, CONSOLIDATE)]["last_counts"] == dict(runs[CONSOLIDATE].counts)
    assert set(runs[CONSOLIDATE].counts) >= {"clusters", "merged", "archived"}


async def test_the_app_runs_the_lifecycle_on_schedule_behind_its_setting(
        store: Store, migrated: Settings, embedder: Embedder, service: MemoryService, namespace: str) -> None:
    token, _ = new_token()
    tokens = json.dumps({"tokens": [make_entry("ops", hash_token(token), write=[namespace]).to_dict()]})
    await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.WORKING, content="scratch: x",
                                              expires_at=utcnow() - timedelta(seconds=1))])
    # the app's worker sweeps every namespace of the database: here only expiry (which no read can see), so the
    # data other tests keep for the session is left as it is
    base: dict[str, Any] = {"tokens": tokens, "tokens_file": None, "maintenance_consolidate_interval_s": 0,
                            "archive_after_days": {}, "purge_after_days": 0}
    off = create_app(migrated.model_copy(update=base), embedder=embedder)
    async with lifespan(off):
        await asyncio.sleep(0.5)
    assert await job_state(store, [namespace]) == [], "the worker ran without GRAPHMEM_MAINTENANCE_WORKER"

    app = create_app(migrated.model_copy(update={**base, "maintenance_worker": True, "maintenance_poll_s": 0.2}),
                     embedder=embedder)
    async with lifespan(app):
        deadline = time.monotonic() + 120  # every namespace of the database is swept, in no fixed order
        while time.monotonic() < deadline:
            state = await job_state(store, [namespace])
            if state and state[0]["runs"] >= 1:
                break
            await asyncio.sleep(0.2)
        metrics = generate_latest(app.state.graphmem.metrics.registry).decode()
    assert [(j["job"], j["runs"], j["last_counts"]["expired"]) for j in state] == [(LIFECYCLE, 1, 1)]
    assert 'graphmem_maintenance_runs_total{job="lifecycle",outcome="ok"}' in metrics
    assert 'graphmem_maintenance_items_total{item="expired",job="lifecycle"}' in metrics
