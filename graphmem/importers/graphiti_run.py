"""Reads a Graphiti graph from its Neo4j (read only) and writes it into graphmem through the normal write path.

The source is read through a ``Store`` of its own (own driver, its settings a copy of the target's with the
source's URI, user, password and database) and only its READ transactions (``Store.read``): nothing here can
write to the source. The target is the ``MemoryService`` (signing, embedding, screening, graph construction).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.importers.graphiti import (
    GraphitiEntity,
    GraphitiEpisode,
    GraphitiFact,
    GraphitiGroup,
    GraphitiPlan,
    from_millis,
)
from graphmem.importers.runner import ImportReport, write_drafts
from graphmem.models import MemoryKind, Turn, utcnow
from graphmem.service import MemoryService
from graphmem.store import Step, Store

Progress = Callable[[int], object]
Row = dict[str, Any]


@dataclass(frozen=True)
class GroupCounts:
    group_id: str
    episodes: int
    entities: int
    facts: int


class GraphitiSource:
    """Read-only access to a Graphiti graph: its groups, and one group at a time, paged by uuid."""

    def __init__(self, store: Store, *, page: int = 1000) -> None:
        self.store = store
        self.page = page

    @classmethod
    @asynccontextmanager
    async def connect(cls, settings: Settings, *, uri: str, user: str, password: str, database: str = "neo4j",
                      page: int = 1000) -> AsyncIterator[GraphitiSource]:
        source = settings.model_copy(update={"neo4j_uri": uri, "neo4j_user": user, "neo4j_database": database,
                                             "neo4j_password": SecretStr(password), "neo4j_auth": bool(password)})
        async with Store.connect(source) as store:
            yield cls(store, page=page)

    async def groups(self, group_ids: Sequence[str] | None = None) -> list[GroupCounts]:
        rows = await self.store.read("importers/graphiti_groups", group_ids=list(group_ids) if group_ids else None)
        return [GroupCounts(r["group_id"], r["episodes"], r["entities"], r["facts"]) for r in rows]

    async def _paged(self, name: str, group_id: str) -> list[Row]:
        rows: list[Row] = []
        after = ""
        while True:
            page = await self.store.read(name, group_id=group_id, after=after, limit=self.page)
            rows += page
            if len(page) < self.page:
                return rows
            after = page[-1]["uuid"]

    async def group(self, group_id: str) -> GraphitiGroup:
        episodes = [GraphitiEpisode(
            uuid=r["uuid"], name=r["name"] or "", content=r["content"] or "", source=str(r["source"] or ""),
            source_description=r["source_description"] or "", valid_at=from_millis(r["valid_at"]),
            created_at=from_millis(r["created_at"]), mentions=tuple(r["mentions"]),
        ) for r in await self._paged("importers/graphiti_episodes", group_id)]
        entities = [GraphitiEntity(
            uuid=r["uuid"], name=r["name"] or "", summary=r["summary"] or "", labels=tuple(r["labels"]),
            created_at=from_millis(r["created_at"]),
        ) for r in await self._paged("importers/graphiti_entities", group_id)]
        facts = [GraphitiFact(
            uuid=r["uuid"], name=r["name"] or "", fact=r["fact"] or "", source=r["source"], target=r["target"],
            episodes=tuple(r["episodes"]), valid_at=from_millis(r["valid_at"]),
            invalid_at=from_millis(r["invalid_at"]), expired_at=from_millis(r["expired_at"]),
            created_at=from_millis(r["created_at"]),
        ) for r in await self._paged("importers/graphiti_facts", group_id)]
        return GraphitiGroup(group_id, tuple(episodes), tuple(entities), tuple(facts))


@dataclass
class GraphitiReport:
    group_id: str
    namespace: str
    source: dict[str, int]
    skipped: dict[str, int]
    memories: ImportReport
    out: dict[str, int] = field(default_factory=dict)
    """What graphmem holds of the group after the run: episodes, facts, summaries, entities, superseded,
    supersedes (edges drawn), quarantined."""
    superseded_now: int = 0
    """Facts this run moved to superseded (0 on a re-run)."""

    def line(self) -> str:
        s, o = self.source, self.out
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items()) if v)
        return (f"{self.group_id or '(default)'} -> {self.namespace}: episodes {s['episodes']} in / {o['episodes']} "
                f"out, facts {s['facts']} in / {o['facts']} out ({o['superseded']} superseded, "
                f"{o['supersedes']} with the fact that replaced them), entities {s['entities']} in / "
                f"{o['entities']} out, summaries {o['summaries']}, created {self.memories.created}, unchanged "
                f"{self.memories.unchanged}, quarantined {o['quarantined']}"
                + (f", skipped: {skipped}" if skipped else "") + f", {self.memories.seconds:.1f}s")


def plan_units(plan: GraphitiPlan) -> int:
    return len(plan.plan.turns) + len(plan.plan.memories)


async def run_graphiti_plan(service: MemoryService, gplan: GraphitiPlan, *, batch_size: int = 500,
                            progress: Progress | None = None) -> GraphitiReport:
    """Write one group: its task and turns, the episodic memories, then facts and summaries, all without
    near-duplicate merging (graphiti resolved duplicates already, and merging would fold an invalidated fact into
    the one that replaced it); then supersede the ended facts and merge every entity. Idempotent."""
    started = time.monotonic()
    plan = gplan.plan
    ns = plan.namespace
    report = ImportReport(namespace=ns, entities=len(plan.entities))
    for task in plan.tasks:
        await service.tasks.start(task)
        report.tasks += 1
    turns: list[Turn] = list(plan.turns)
    for start in range(0, len(turns), batch_size):
        chunk = turns[start:start + batch_size]
        await service.tasks.log_turns(ns, chunk[0].task_id, chunk)
        report.turns += len(chunk)
        if progress:
            progress(len(chunk))
    episodic = [m for m in plan.memories if m.kind is MemoryKind.EPISODIC]
    others = [m for m in plan.memories if m.kind is not MemoryKind.EPISODIC]
    for drafts in (episodic, others):
        if drafts:
            await write_drafts(service, drafts, report, batch_size=batch_size, dedupe=False, progress=progress)
    at = utcnow()
    steps = [Step("importers/graphiti_entities_merge", {
        "namespace": ns, "rows": [{"name": n, "kind": k, "at": at} for n, k in gplan.entity_rows]})]
    if gplan.supersessions:
        steps.append(Step("importers/graphiti_supersede", {
            "namespace": ns, "rows": [{"old": s.old, "new": s.new, "at": s.at} for s in gplan.supersessions]}))
    written = await service.store.write(steps)
    report.seconds = time.monotonic() - started
    out = GraphitiReport(gplan.group_id, ns, dict(gplan.source_counts), dict(gplan.skipped), report)
    out.superseded_now = sum(1 for r in (written[1] if len(written) > 1 else []) if r["changed"])
    ids = [m.id for m in plan.memories if m.id]
    rows = await service.store.read("importers/graphiti_imported", namespace=ns, ids=ids)
    out.out = {k: 0 for k in ("episodes", "facts", "summaries", "superseded", "supersedes", "quarantined")}
    for r in rows:
        out.out.update({k: int(r[k]) for k in out.out})
    out.out["entities"] = len(written[0])
    return out


__all__ = ["GraphitiReport", "GraphitiSource", "GroupCounts", "plan_units", "run_graphiti_plan"]
