"""Wiping a namespace removes everything of it, its dedupe lock nodes and maintenance jobs included, and nothing of
another."""

from __future__ import annotations

import uuid
from pathlib import Path

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.lifecycle.worker import ensure_jobs, job_state
from graphmem.models import MemoryDraft, MemoryKind, utcnow
from graphmem.service import MemoryService
from graphmem.store import Store

COUNT_LOCKS = (Path(__file__).parent / "cypher" / "count_locks.cypher").read_text()


async def locks(store: Store, namespace: str) -> int:
    async with store.driver.session(database=store.database) as session:
        record = await (await session.run(COUNT_LOCKS, prefix=f"{namespace}\u0000")).single()
        return int(record["n"]) if record else 0


FACTS = ("Alice drinks green tea every morning.", "Bob rides a red bicycle to work.",
         "The office closes at six in the evening.", "Carol moved to Lisbon in May.", "Dave's dog is called Rex.")
"""Five facts no two of which are near duplicates ("Fact 1 of <ns>" and "Fact 2 of <ns>" were merged under some
random namespace names)."""


async def test_wipe_removes_the_namespaces_lock_nodes_only(store: Store, embedder: Embedder, migrated: Settings,
                                                           namespace: str) -> None:
    other = f"t-{uuid.uuid4().hex[:12]}"
    service = MemoryService(store, embedder, migrated)
    for ns in (namespace, other):
        await service.write_memories([MemoryDraft(namespace=ns, kind=MemoryKind.SEMANTIC, content=text)
                                      for text in FACTS])
    assert await locks(store, namespace) > 0
    assert await locks(store, other) > 0
    try:
        await store.wipe_namespace(namespace)
        assert await locks(store, namespace) == 0
        assert await locks(store, other) > 0
        assert len(await store.list_memories(other)) == 5
    finally:
        await store.wipe_namespace(other)


async def test_wipe_removes_the_namespaces_maintenance_jobs_only(store: Store, namespace: str) -> None:
    other = f"t-{uuid.uuid4().hex[:12]}"
    rows = [{"namespace": ns, "job": job} for ns in (namespace, other) for job in ("consolidate", "lifecycle")]
    await ensure_jobs(store, rows, now=utcnow())
    assert len(await job_state(store, [namespace, other])) == 4
    try:
        await store.wipe_namespace(namespace)
        assert await job_state(store, [namespace]) == []
        assert [j["job"] for j in await job_state(store, [other])] == ["consolidate", "lifecycle"]
    finally:
        await store.wipe_namespace(other)
