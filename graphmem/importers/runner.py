"""Runs an import plan through the MemoryService in batches, with progress, idempotently."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field

from graphmem.errors import ValidationError
from graphmem.importers.plan import ImportPlan
from graphmem.models import MemoryDraft, MemoryKind, Turn, WriteAction, WriteResult
from graphmem.service import MemoryService
from graphmem.service.integrity_ops import check

Progress = Callable[[int], object]


@dataclass
class ImportReport:
    namespace: str
    tasks: int = 0
    turns: int = 0
    created: int = 0
    strengthened: int = 0
    """Near-duplicates that reinforced an existing memory (its confidence and provenance changed)."""
    unchanged: int = 0
    """Nothing written: the id is stored, or an earlier import applied this item's strengthening already."""
    entities: int = 0
    """The entities the import added to the namespace (the speakers, and what the write path's extractor finds in
    the content; a writer beside the import adds to that count)."""
    unmatched_evidence: int = 0
    unverified: int = 0
    """Memories of the namespace that fail verification under the current signing keys after the import (written
    under a key no longer listed, or changed outside graphmem): reads hide them, and an import leaves a stored id
    as it is, so importing again does not bring them back (``graphmem db wipe-namespace`` first does)."""
    seconds: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_kind.items()))
        created = f"created {self.created}" + (f" ({kinds})" if kinds else "")
        return (f"{self.namespace}: {self.tasks} tasks, {self.turns} turns, memories {created}, "
                f"strengthened {self.strengthened}, unchanged {self.unchanged}, "
                f"{self.entities} entities, {self.unmatched_evidence} unmatched evidence ids, {self.seconds:.1f}s"
                + (f"; {self.unverified} stored memories fail verification under the current signing keys and "
                   "reads hide them" if self.unverified else ""))

    def count(self, drafts: Sequence[MemoryDraft], results: Sequence[WriteResult], applied: Set[str]) -> None:
        """Add one batch's results. ``applied``: the draft ids the namespace accounted for before the write (stored
        memories and the strengthen tokens of earlier writes): a strengthen by one of them changed nothing."""
        for item in results:
            draft = drafts[item.index]
            if item.action is WriteAction.CREATED:
                self.created += 1
                self.by_kind[draft.kind.value] = self.by_kind.get(draft.kind.value, 0) + 1
            elif item.action is WriteAction.STRENGTHENED and not (draft.id is not None and draft.id in applied):
                self.strengthened += 1
            else:
                self.unchanged += 1


def plan_units(plan: ImportPlan) -> int:
    """How many progress units an import of ``plan`` reports (turns + memories)."""
    return len(plan.turns) + len(plan.memories)


async def applied_ids(service: MemoryService, drafts: Sequence[MemoryDraft]) -> set[str]:
    """The draft ids the drafts' namespaces already account for: memory ids and strengthen tokens (a repeat's own
    id, which ``memory/strengthen`` applies once). Empty when no draft has an id (nothing to recognise then)."""
    if not any(d.id for d in drafts):
        return set()
    ids: set[str] = set()
    for namespace in sorted({d.namespace for d in drafts}):
        for row in await service.store.read("eval/written_ids", namespace=namespace):
            ids.update(row["ids"])
    return ids


async def write_drafts(
    service: MemoryService, drafts: Sequence[MemoryDraft], report: ImportReport, *, batch_size: int,
    dedupe: bool, progress: Progress | None = None,
) -> None:
    if batch_size < 1:
        raise ValidationError(f"batch size must be at least 1 (got {batch_size})", field="batch_size")
    applied = await applied_ids(service, drafts) if dedupe else set()
    # A draft the namespace accounts for is not written again: a strengthen token is checked on the memory a
    # repeat hits, and a re-import's near-duplicate can hit another one (a memory written since, or a tie).
    todo = [d for d in drafts if d.id is None or d.id not in applied]
    report.unchanged += len(drafts) - len(todo)
    if progress is not None and len(todo) < len(drafts):
        progress(len(drafts) - len(todo))
    batches = [todo[start:start + batch_size] for start in range(0, len(todo), batch_size)]
    results = await service.write_many(batches, dedupe=dedupe, progress=progress)
    for batch, result in zip(batches, results, strict=True):
        report.count(batch, result.items, applied)


async def entity_count(service: MemoryService, namespace: str) -> int:
    """How many entities ``namespace`` holds."""
    rows = await service.store.read("analysis/entity_count", namespace=namespace)
    return int(rows[0]["n"]) if rows else 0


async def import_drafts(
    service: MemoryService, namespace: str, drafts: Sequence[MemoryDraft], *, batch_size: int, dedupe: bool,
    progress: Progress | None = None,
) -> ImportReport:
    """Write the drafts of one namespace (``import jsonl``): the report counts the entities the write path added
    (a writer beside the import adds to that count) and the namespace's memories that fail verification."""
    started = time.monotonic()
    report = ImportReport(namespace=namespace)
    before = await entity_count(service, namespace)
    await write_drafts(service, drafts, report, batch_size=batch_size, dedupe=dedupe, progress=progress)
    report.entities = max(0, await entity_count(service, namespace) - before)
    report.unverified = await unverified(service, namespace)
    report.seconds = time.monotonic() - started
    return report


async def unverified(service: MemoryService, namespace: str) -> int:
    """How many memories of ``namespace`` fail verification (0 when signing is disabled: nothing is checked)."""
    if not service.store.integrity.enabled:
        return 0
    return len((await check(service.store, namespace=namespace)).failures)


def unverified_hint(namespace: str, n: int, *, exported: bool = False) -> str:
    """What to do about a namespace whose stored memories fail verification: after an import
    (``ImportReport.unverified``), or an export that left them out (``exported``)."""
    what = ("were left out of the export, with their edges" if exported else
            "reads hide them (or flag them); importing again leaves them as they are")
    again = " and export again" if exported else ""
    return (f"{namespace}: {n} stored memories fail verification under GRAPHMEM_SIGNING_KEYS (signed under "
            f"another key, or changed outside graphmem), and {what}. List them: graphmem integrity check "
            f"--namespace {namespace}. Then either list the key they were signed with in GRAPHMEM_SIGNING_KEYS"
            f"{again}, or wipe the namespace and import it again: graphmem db wipe-namespace {namespace} --yes")


async def run_plan(
    service: MemoryService, plan: ImportPlan, *, batch_size: int = 500, progress: Progress | None = None,
) -> ImportReport:
    """Write tasks, their turns, then episodic memories (never deduplicated: each is its own event), then
    semantic ones (deduplicated). Ids are stable, so running the same plan twice adds nothing."""
    started = time.monotonic()
    report = ImportReport(namespace=plan.namespace, unmatched_evidence=len(plan.unmatched_evidence))
    before = await entity_count(service, plan.namespace)
    for task in plan.tasks:
        await service.tasks.start(task)
        report.tasks += 1
    turns_by_task: dict[str, list[Turn]] = defaultdict(list)
    for turn in plan.turns:
        turns_by_task[turn.task_id].append(turn)
    for task_id, turns in turns_by_task.items():
        await service.tasks.log_turns(plan.namespace, task_id, turns)
        report.turns += len(turns)
        if progress:
            progress(len(turns))
    episodic = [m for m in plan.memories if m.kind is MemoryKind.EPISODIC]
    others = [m for m in plan.memories if m.kind is not MemoryKind.EPISODIC]
    await write_drafts(service, episodic, report, batch_size=batch_size, dedupe=False, progress=progress)
    await write_drafts(service, others, report, batch_size=batch_size, dedupe=True, progress=progress)
    report.entities = max(0, await entity_count(service, plan.namespace) - before)
    report.unverified = await unverified(service, plan.namespace)
    report.seconds = time.monotonic() - started
    return report
