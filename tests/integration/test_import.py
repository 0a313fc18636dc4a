"""Bulk import of real LoCoMo data (the first sessions of one conversation) into the real Neo4j."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from graphmem.importers.jsonl import parse_jsonl
from graphmem.importers.locomo import load_locomo, plan_locomo
from graphmem.importers.runner import ImportReport, run_plan, write_drafts
from graphmem.models import WriteAction
from graphmem.service import MemoryService
from graphmem.store import Store

LOCOMO = Path(os.environ.get("GRAPHMEM_LOCOMO_PATH",
                             Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"))


async def snapshot(store: Store, namespace: str) -> list[dict[str, Any]]:
    return await store.read("test/namespace_fingerprint", namespace=namespace)


async def test_locomo_import_is_complete_and_idempotent(service: MemoryService, store: Store,
                                                        namespace: str) -> None:
    sample = load_locomo(LOCOMO)[0]
    small = dataclasses.replace(sample, sessions=sample.sessions[:2])
    plan = plan_locomo(small, namespace=namespace)
    counts = plan.counts()
    seen: list[int] = []
    first = await run_plan(service, plan, batch_size=64, progress=seen.append)
    assert sum(seen) == counts["turns"] + counts["memories"]
    assert first.tasks == 2
    assert first.turns == counts["turns"]
    assert first.created + first.strengthened == counts["memories"]
    assert counts["summaries"] == 2  # one per session: LoCoMo's session_summary
    assert first.by_kind["episodic"] == counts["episodic"] + counts["summaries"]  # turns are never merged
    before = await snapshot(store, namespace)
    fp = {r["what"]: r["n"] for r in before}
    assert fp["Turn"] == counts["turns"]
    # the graph a write builds: the speakers and the entities found in the turns, consecutive turns of a session
    assert fp["Entity"] > 2
    assert first.entities == fp["Entity"]  # the report counts what the import added, not just the speakers
    assert fp["FOLLOWS"] == counts["episodic"] - first.tasks  # the summaries take no part in the time order
    assert fp["SIMILAR_TO"] > 0
    # every semantic memory points at the turns its evidence names
    rows = await store.read("test/semantic_evidence", namespace=namespace)
    assert rows
    assert all(r["turns"] >= 1 for r in rows)

    second = await run_plan(service, plan, batch_size=64)
    assert (second.created, second.entities) == (0, 0)
    assert await snapshot(store, namespace) == before  # nodes, edges, confidences: nothing changed


async def test_jsonl_import_with_ids_is_idempotent(service: MemoryService, namespace: str) -> None:
    lines = [
        f'{{"id": "j1", "namespace": "{namespace}", "kind": "semantic", "content": "Erin speaks Portuguese"}}',
        f'{{"id": "j2", "namespace": "{namespace}", "kind": "lesson", "content": "Run tests before pushing"}}',
    ]
    drafts = parse_jsonl(lines)
    report = ImportReport(namespace=namespace)
    await write_drafts(service, drafts, report, batch_size=10, dedupe=True)
    assert report.created == 2
    again = await service.write_memories(drafts)
    assert [r.action for r in again.items] == [WriteAction.EXISTS, WriteAction.EXISTS]


async def test_a_repeat_imported_again_changes_nothing_when_its_nearest_memory_is_another(
        service: MemoryService, namespace: str) -> None:
    """A repeat strengthens the memory it hits, once (its id is that memory's token). Imported again after a
    closer memory was written, it must not strengthen that one: the import recognises its id first."""
    lines = [
        f'{{"id": "r1", "namespace": "{namespace}", "kind": "semantic", "content": "Erin speaks fluent Portuguese"}}',
        f'{{"id": "r2", "namespace": "{namespace}", "kind": "semantic", "content": "Erin speaks Portuguese fluently"}}',
    ]
    drafts = parse_jsonl(lines)
    first = ImportReport(namespace=namespace)
    await write_drafts(service, drafts, first, batch_size=10, dedupe=True)
    assert (first.created, first.strengthened) == (1, 1)
    # another writer stores r2's very words under another id: the nearest memory to r2 is now that one
    (closer,) = (await service.write_memories(parse_jsonl([
        f'{{"id": "c1", "namespace": "{namespace}", "kind": "semantic", "content": "Erin speaks Portuguese fluently"}}',
    ]), dedupe=False)).items
    assert closer.action is WriteAction.CREATED
    before = {m.id: (m.reinforced_count, m.confidence) for m in await service.store.list_memories(namespace)}
    again = ImportReport(namespace=namespace)
    seen: list[int] = []
    await write_drafts(service, drafts, again, batch_size=10, dedupe=True, progress=seen.append)
    assert (again.created, again.strengthened, again.unchanged) == (0, 0, 2)
    assert sum(seen) == 2
    after = {m.id: (m.reinforced_count, m.confidence) for m in await service.store.list_memories(namespace)}
    assert after == before
