"""``graphmem import graphiti`` on a graph written by graphiti-core's own API, in the real Neo4j.

The graph is written by ``graphiti_writer.py`` in ``.graphiti-venv`` (``scripts/graphiti-setup.sh``) into the same
database as graphmem's (Neo4j Community has one user database): graphiti's own labels (``Episodic``, ``Entity`` with
a ``group_id``, ``RELATES_TO``, ``MENTIONS``) under group ids of this test alone, deleted afterwards.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.importers.graphiti import graphiti_namespace, namespaces_for, plan_graphiti
from graphmem.importers.graphiti_run import GraphitiReport, GraphitiSource, run_graphiti_plan
from graphmem.importers.plan import stable_id
from graphmem.models import MemoryStatus
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.access import AccessRecorder
from graphmem.service import MemoryService
from graphmem.store import Store

HERE = Path(__file__).resolve().parent
VENV_PYTHON = HERE.parents[1] / ".graphiti-venv" / "bin" / "python"
WIPE = (HERE / "cypher" / "graphiti_wipe.cypher").read_text()
STATE = (HERE / "cypher" / "graphiti_imported_state.cypher").read_text()


@pytest.fixture
async def written(migrated: Settings, store: Store) -> AsyncIterator[list[dict[str, Any]]]:
    """The graph graphiti wrote (its writer's JSON), and afterwards graphiti's nodes and the namespaces wiped."""
    if not VENV_PYTHON.exists():
        pytest.fail(f"{VENV_PYTHON} missing: run scripts/graphiti-setup.sh")
    prefix = f"t{uuid.uuid4().hex[:8]}"
    done = subprocess.run(
        [str(VENV_PYTHON), str(HERE / "graphiti_writer.py"), "--uri", migrated.neo4j_uri,
         "--user", migrated.neo4j_user,
         f"--password={migrated.neo4j_password.get_secret_value()}",  # a random password may start with "-"
         "--database", migrated.neo4j_database, "--prefix", prefix],
        capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    groups: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    try:
        yield groups
    finally:
        ids = [g["group_id"] for g in groups]
        async with store.driver.session(database=store.database) as session:
            await (await session.run(WIPE, group_ids=ids)).consume()
        for g in ids:
            await store.wipe_namespace(graphiti_namespace(g))


async def import_all(service: MemoryService, settings: Settings, group_ids: list[str]) -> list[GraphitiReport]:
    """What ``graphmem import graphiti`` does, against the fixture's server as the source."""
    async with GraphitiSource.connect(settings, uri=settings.neo4j_uri, user=settings.neo4j_user,
                                      password=settings.neo4j_password.get_secret_value(),
                                      database=settings.neo4j_database, page=2) as source:  # page 2: paging runs
        groups = await source.groups(group_ids)
        mapping = namespaces_for([g.group_id for g in groups])
        plans = [plan_graphiti(await source.group(g.group_id), mapping[g.group_id]) for g in groups]
    seen: list[int] = []
    reports = [await run_graphiti_plan(service, p, batch_size=3, progress=seen.append) for p in plans]
    assert sum(seen) == sum(len(p.plan.turns) + len(p.plan.memories) for p in plans)
    return reports


async def state(store: Store, namespace: str) -> list[dict[str, Any]]:
    async with store.driver.session(database=store.database) as session:
        return [r.data() async for r in await session.run(STATE, namespace=namespace)]


async def test_graphiti_graph_is_imported_searchable_and_idempotent(
        service: MemoryService, store: Store, migrated: Settings, written: list[dict[str, Any]]) -> None:
    group_ids = [g["group_id"] for g in written]
    reports = await import_all(service, migrated, group_ids)
    by_group = {r.group_id: r for r in reports}
    assert sorted(by_group) == sorted(group_ids)
    for g in written:
        r = by_group[g["group_id"]]
        assert r.namespace == graphiti_namespace(g["group_id"])
        assert r.source["episodes"] == r.out["episodes"] == g["episodes"], r.line()
        assert r.source["facts"] == r.out["facts"] == g["facts"], r.line()
        assert r.source["entities"] == r.out["entities"] == g["entities"], r.line()
        assert r.out["summaries"] == g["summaries"]
        assert r.out["quarantined"] == 0
        names = {row["name"] for row in await state(store, r.namespace) if row["what"] == "entity"}
        assert {n.lower() for n in g["entity_names"]} <= names
        # FOLLOWS between consecutive episodes of the group's task
        follows = [row for row in await state(store, r.namespace) if row["what"] == "follows"]
        assert follows[0]["n"] == g["episodes"] - 1

    alpha = next(g for g in written if g["group_id"].endswith("_alpha"))
    ns = graphiti_namespace(alpha["group_id"])
    kinds = {row["name"]: row["kind"] for row in await state(store, ns) if row["what"] == "entity"}
    named = {n.lower(): kinds[n.lower()] for n in alpha["entity_names"]}  # the extractor adds others ("hiking")
    assert named == {"alice": "person", "acme corp": "organization", "globex": "organization", "bob": "person",
                     "alps": "location"}  # graphiti's type labels, though the extractor saw the names first
    alpha_report = by_group[alpha["group_id"]]
    assert alpha_report.out["superseded"] == 1
    assert alpha_report.superseded_now == 1
    assert alpha_report.out["supersedes"] == 1
    facts = {row["id"]: row for row in await state(store, ns) if row["what"] == "fact"}
    old_id, new_id = (stable_id(ns, "graphiti", "fact", alpha["fact_uuids"][k]) for k in ("old", "new"))
    old_row, new_row = facts[old_id], facts[new_id]
    old, new = await service.get_memory(ns, old_id), await service.get_memory(ns, new_id)  # signatures verified
    assert old.status is MemoryStatus.SUPERSEDED
    assert new.status is MemoryStatus.ACTIVE
    assert old.valid_until == datetime.fromisoformat(alpha["invalid"]["old"])  # graphiti's invalid_at, kept
    assert old.valid_from == datetime.fromisoformat(alpha["valid"]["old"])
    assert old_row["superseded_by"] == new_id
    assert new_row["supersedes"] == [old_id]
    assert {"acme corp", "alice"} <= set(old_row["about"])
    assert len(old_row["derived"]) == 2  # the episodic memories of the two episodes it cites
    others = [await service.get_memory(ns, i) for i in facts if i != old_id]
    assert all(m.status is MemoryStatus.ACTIVE for m in others)

    recorder = AccessRecorder(service.store, flush_every_s=3600)
    retrieval = RetrievalService(service.store, service.embedder, service.settings, versions=service.versions,
                                 recorder=recorder)
    try:
        response = await retrieval.search("Where does Alice work now?", SearchOptions(namespaces=(ns,), k=5))
    finally:
        await recorder.stop()
    found = [hit.memory.content for hit in response.results]
    assert alpha["facts_text"]["new"] in found
    assert alpha["facts_text"]["old"] not in found  # superseded: not searched by default

    before = {r.namespace: await store.read("test/namespace_fingerprint", namespace=r.namespace) for r in reports}
    again = await import_all(service, migrated, group_ids)
    for r in again:
        assert r.memories.created == 0, r.line()
        assert r.superseded_now == 0, r.line()
        assert await store.read("test/namespace_fingerprint", namespace=r.namespace) == before[r.namespace]
