"""The memory life cycle on the real Neo4j: the working-memory TTL on write, and the sweeper's expiry, archive and
purge, each only past its time (a ``now`` parameter, no sleeping) and only in its namespace; the dry run writes
nothing; archived memories leave search, keep verifying and come back with restore."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.lifecycle import Sweeper
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, utcnow
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.types import SearchOptions
from graphmem.service import MemoryService
from graphmem.service.integrity_ops import check
from graphmem.store import Step, Store

DAY = timedelta(days=1)


def draft(ns: str, content: str, **kw: Any) -> MemoryDraft:
    return MemoryDraft(namespace=ns, kind=kw.pop("kind", MemoryKind.EPISODIC), content=content, **kw)


def sweeper(service: MemoryService, **settings: Any) -> Sweeper:
    """A sweeper with pages of 2 (every loop runs more than once) and the archive rule the tests use."""
    base = {"lifecycle_batch": 2, "archive_after_days": {MemoryKind.EPISODIC: 90.0},
            "archive_below_confidence": {MemoryKind.EPISODIC: 0.5}, "purge_after_days": 30.0}
    return Sweeper(service.store, service.settings.model_copy(update={**base, **settings}),
                   versions=service.versions)


async def write(service: MemoryService, drafts: list[MemoryDraft]) -> list[str]:
    return [r.id for r in (await service.write_memories(drafts)).items]


async def counts(store: Store, namespace: str) -> dict[str, int]:
    """Nodes by label and edges by type, of every status (expired memories too)."""
    return {r["what"]: r["n"] for r in await store.read("test/count_namespace", namespace=namespace)}


async def entities(store: Store, namespace: str) -> set[str]:
    return {r["name"] for r in await store.read("graph/entities", namespace=namespace, limit=100)}


async def statuses(store: Store, namespace: str) -> dict[str, str]:
    """Every (unexpired) memory's status, by id."""
    listed = await store.list_memories(namespace, statuses=list(MemoryStatus), limit=1000)
    return {m.id: m.status.value for m in listed}


@pytest.fixture
async def other(store: Store) -> AsyncIterator[str]:
    """A second namespace, with the same kind of data: the sweep of the first must leave it alone."""
    ns = f"t-{uuid.uuid4().hex[:12]}"
    yield ns
    await store.wipe_namespace(ns)


# --- working-memory TTL --------------------------------------------------------------------------------------
async def test_working_memory_gets_the_default_ttl_and_an_explicit_expiry_is_kept(
        service: MemoryService, namespace: str) -> None:
    explicit = utcnow() + timedelta(minutes=7)
    before = utcnow()
    plain, timed, fact = await write(service, [
        draft(namespace, "scratch: reading main.py", kind=MemoryKind.WORKING),
        draft(namespace, "scratch: the build is running", kind=MemoryKind.WORKING, expires_at=explicit),
        draft(namespace, "Caroline moved to Lisbon in 2022.", kind=MemoryKind.SEMANTIC)])
    after = utcnow()
    ttl = timedelta(seconds=service.settings.working_ttl_s)
    assert ttl == timedelta(hours=24)
    got = (await service.get_memory(namespace, plain)).expires_at
    assert got is not None
    assert before + ttl <= got <= after + ttl
    assert (await service.get_memory(namespace, timed)).expires_at == explicit
    assert (await service.get_memory(namespace, fact)).expires_at is None  # only working memory gets a TTL


async def test_a_ttl_of_zero_means_no_default_expiry(service: MemoryService, namespace: str) -> None:
    untimed = MemoryService(service.store, service.embedder, service.settings.model_copy(update={"working_ttl_s": 0}))
    (memory_id,) = await write(untimed, [draft(namespace, "scratch: forever", kind=MemoryKind.WORKING)])
    assert (await service.get_memory(namespace, memory_id)).expires_at is None


# --- expiry --------------------------------------------------------------------------------------------------
async def test_expired_memories_are_swept_past_their_time_only_in_their_namespace_with_their_entities(
        bare_service: MemoryService, store: Store, namespace: str, other: str) -> None:
    t0 = utcnow()
    for ns in (namespace, other):
        await write(bare_service, [
            draft(ns, f"scratch: step {i} of the Zanzibar plan", kind=MemoryKind.WORKING,
                  expires_at=t0 + timedelta(hours=1), entities=("Zanzibar",)) for i in range(5)])
        await write(bare_service, [draft(ns, "Caroline likes Zanzibar and Lisbon.", entities=("Zanzibar", "Lisbon")),
                                   draft(ns, "scratch: later", kind=MemoryKind.WORKING,
                                         expires_at=t0 + timedelta(hours=3), entities=("Later",))])
    sweep = sweeper(bare_service)
    early = await sweep.run(namespace, now=t0 + timedelta(minutes=59))
    assert early.counts() == {"expired": 0, "archived": 0, "purged": 0, "entities": 0}
    assert (await counts(store, namespace))["Memory"] == 7

    report = await sweep.run(namespace, now=t0 + timedelta(hours=2))
    assert (report.expired, report.archived, report.purged) == (5, 0, 0)
    assert report.entities == 0  # Zanzibar: the live memory is about it too
    assert (await counts(store, namespace))["Memory"] == 2
    assert (await counts(store, other))["Memory"] == 7, "the sweep of one namespace touched another"
    assert (await sweep.run(namespace, now=t0 + timedelta(hours=2))).expired == 0  # nothing left: idempotent

    late = await sweep.run(namespace, now=t0 + timedelta(hours=4))
    assert (late.expired, late.entities) == (1, 1)  # "Later" was only the expired memory's entity
    assert await entities(store, namespace) == {"zanzibar", "lisbon"}  # names normalised
    assert await entities(store, other) == {"zanzibar", "lisbon", "later"}


# --- archive -------------------------------------------------------------------------------------------------
async def test_archive_takes_old_unused_unsure_memories_only(service: MemoryService, store: Store, namespace: str,
                                                             other: str) -> None:
    t0 = utcnow()
    old = t0 - 100 * DAY
    ids = {}
    for ns in (namespace, other):
        ids[ns] = await write(service, [
            draft(ns, "Melanie painted a sunrise over the lake.", created_at=old, confidence=0.2),
            draft(ns, "Melanie signed up for a pottery class.", created_at=old, confidence=0.3),
            draft(ns, "Melanie ran a charity race for mental health.", created_at=old, confidence=0.4),
            draft(ns, "Caroline went to an LGBTQ support group.", created_at=old, confidence=0.9),  # confident
            draft(ns, "Caroline researched adoption agencies.", created_at=t0 - 10 * DAY, confidence=0.2),  # young
            draft(ns, "Caroline is a transgender woman.", created_at=old, confidence=0.2,
                  kind=MemoryKind.SEMANTIC),  # no rule for semantic memories here
            draft(ns, "Never promise a date you cannot check.", created_at=old, confidence=0.1,
                  kind=MemoryKind.LESSON),  # lessons: never, unless configured
            draft(ns, "Melanie's kids love dinosaurs.", created_at=old, confidence=0.2),  # accessed, below
        ])
    used = ids[namespace][7]
    await store.write([Step("retrieval/touch", {"rows": [{"namespace": namespace, "id": used, "n": 1,
                                                          "at": t0 - 95 * DAY}]})])
    report = await sweeper(service).run(namespace, now=t0)
    assert report.archived == 3
    got = await statuses(store, namespace)
    assert {i for i, s in got.items() if s == "archived"} == set(ids[namespace][:3])
    assert set((await statuses(store, other)).values()) == {"active"}
    assert (await sweeper(service).run(namespace, now=t0)).archived == 0  # a second run changes nothing
    for memory_id in ids[namespace][:3]:  # re-signed when archived: still verifies, so reads return it
        memory = await store.get_memory(memory_id, [namespace])
        assert memory is not None
        assert memory.status is MemoryStatus.ARCHIVED
    tally = await check(store, namespace=namespace)
    assert (tally.checked, tally.failures) == (8, [])

    lessons_too = sweeper(service, archive_after_days={MemoryKind.LESSON: 30.0}, archive_below_confidence={})
    assert (await lessons_too.run(namespace, now=t0)).archived == 1
    assert (await statuses(store, namespace))[ids[namespace][6]] == "archived"


async def test_archived_memories_leave_search_and_come_back_with_restore(service: MemoryService,
                                                                         namespace: str) -> None:
    t0 = utcnow()
    (archived, kept) = await write(service, [
        draft(namespace, "Melanie painted a sunrise over the lake last summer.", created_at=t0 - 100 * DAY,
              confidence=0.2),
        draft(namespace, "Melanie painted her kids playing on the beach.", confidence=0.9)])
    retrieval = RetrievalService(service.store, service.embedder, service.settings, versions=service.versions)
    query = "What did Melanie paint?"
    found = await retrieval.search(query, SearchOptions(namespaces=(namespace,)))  # cached now
    assert {r.memory.id for r in found.results} == {archived, kept}

    assert (await sweeper(service).run(namespace, now=t0)).archived == 1
    hidden = await retrieval.search(query, SearchOptions(namespaces=(namespace,)))
    assert {r.memory.id for r in hidden.results} == {kept}, "an archived memory was searched by default"
    asked = await retrieval.search(query, SearchOptions(namespaces=(namespace,),
                                                         statuses=(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED)))
    assert {r.memory.id for r in asked.results} == {archived, kept}

    assert await service.restore_memories(namespace, [archived]) == [archived]
    assert (await service.get_memory(namespace, archived)).status is MemoryStatus.ACTIVE
    back = await retrieval.search(query, SearchOptions(namespaces=(namespace,)))
    assert {r.memory.id for r in back.results} == {archived, kept}


# --- purge ---------------------------------------------------------------------------------------------------
async def test_deleted_memories_are_purged_after_the_retention_period_with_their_own_entities(
        bare_service: MemoryService, store: Store, namespace: str, other: str) -> None:
    ids = {}
    for ns in (namespace, other):
        ids[ns] = await write(bare_service, [
            draft(ns, "Jon opened a dance studio.", entities=("Jon", "dance studio")),
            draft(ns, "Jon lost his banking job.", entities=("Jon", "bank")),
            draft(ns, "Gina opened an online clothing store.", entities=("Gina",)),
            draft(ns, "Jon and Gina met at a dance class.", entities=("Jon", "Gina"))])
        assert await bare_service.delete_memories(ns, ids[ns][:3]) == ids[ns][:3]
    deleted_at = utcnow()
    sweep = sweeper(bare_service)
    assert (await sweep.run(namespace, now=deleted_at + 29 * DAY)).purged == 0
    assert (await counts(store, namespace))["Memory"] == 4

    report = await sweep.run(namespace, now=deleted_at + 31 * DAY)
    assert (report.purged, report.entities) == (3, 2)  # dance studio, bank: only purged memories were about them
    assert await statuses(store, namespace) == {ids[namespace][3]: "active"}
    assert await entities(store, namespace) == {"jon", "gina"}  # the live memory is about them
    assert len(await statuses(store, other)) == 4
    assert await entities(store, other) == {"jon", "gina", "dance studio", "bank"}

    assert (await sweeper(bare_service, purge_after_days=0).run(other, now=deleted_at + 365 * DAY)).purged == 0


# --- dry run -------------------------------------------------------------------------------------------------
async def seed_everything(service: MemoryService, namespace: str, t0: datetime) -> dict[str, list[str]]:
    """Three memories to expire, two to archive, two to purge (at t0 + 40 days), one to keep."""
    expiring = await write(service, [draft(namespace, f"scratch: note {i}", kind=MemoryKind.WORKING,
                                           expires_at=t0 + DAY) for i in range(3)])
    stale = await write(service, [draft(namespace, "Melanie read a book about birds.", created_at=t0 - 100 * DAY,
                                        confidence=0.1),
                                  draft(namespace, "Melanie bought new running shoes.", created_at=t0 - 100 * DAY,
                                        confidence=0.1)])
    doomed = await write(service, [draft(namespace, "Jon sells sneakers now."),
                                   draft(namespace, "Jon moved his studio downtown.")])
    await service.delete_memories(namespace, doomed)
    await write(service, [draft(namespace, "Caroline gave a talk at a school.", confidence=0.95)])
    return {"expired": expiring, "archived": stale, "purged": doomed}


async def snapshot(store: Store, namespace: str) -> tuple[Any, ...]:
    rows = await store.read("test/namespace_fingerprint", namespace=namespace)
    return (sorted((r["what"], r["n"], r["conf"]) for r in rows), await statuses(store, namespace),
            await entities(store, namespace))


async def test_the_dry_run_counts_what_the_run_does_and_writes_nothing(service: MemoryService, store: Store,
                                                                       namespace: str) -> None:
    t0 = utcnow()
    planted = await seed_everything(service, namespace, t0)
    before = await snapshot(store, namespace)
    when = t0 + 40 * DAY
    dry = await sweeper(service).run(namespace, now=when, dry_run=True, list_ids=True)
    assert dry.dry_run
    assert {k: sorted(v) for k, v in dry.ids.items()} == {k: sorted(v) for k, v in planted.items()}
    assert await snapshot(store, namespace) == before, "the dry run wrote something"
    real = await sweeper(service).run(namespace, now=when)
    assert (real.expired, real.archived, real.purged) == (dry.expired, dry.archived, dry.purged) == (3, 2, 2)
    assert dry.entities == real.entities  # the dry run counts the entities it would remove too
    assert await snapshot(store, namespace) != before


# --- the command line ----------------------------------------------------------------------------------------
def graphmem(settings: Any, *args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("graphmem", path=str(Path(sys.executable).parent)) or "graphmem"
    env = {**os.environ, "GRAPHMEM_NEO4J_URI": settings.neo4j_uri, "GRAPHMEM_NEO4J_USER": settings.neo4j_user,
           "GRAPHMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
           "GRAPHMEM_CACHE_DIR": str(settings.cache_dir), "GRAPHMEM_LIFECYCLE_BATCH": "2"}
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=180, check=False)


async def test_the_command_lists_in_a_dry_run_then_sweeps(service: MemoryService, store: Store,
                                                          namespace: str) -> None:
    t0 = utcnow()
    stale = await write(service, [draft(namespace, f"Melanie's old note number {i}.", created_at=t0 - 400 * DAY,
                                        confidence=0.1) for i in range(3)])
    dry = await asyncio.to_thread(graphmem, service.settings, "lifecycle", namespace, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    out = json.loads(dry.stdout)
    assert (out["dry_run"], out["archived"], sorted(out["ids"]["archived"])) == (True, 3, sorted(stale))
    assert set((await statuses(store, namespace)).values()) == {"active"}
    done = await asyncio.to_thread(graphmem, service.settings, "lifecycle", namespace)
    assert done.returncode == 0, done.stderr
    assert f"{namespace}: expired 0, archived 3, purged 0" in done.stdout
    assert set((await statuses(store, namespace)).values()) == {"archived"}
    bad = await asyncio.to_thread(graphmem, service.settings, "lifecycle", "Not A Namespace")
    assert bad.returncode == 1
    assert "error [INVALID_INPUT]" in bad.stderr
