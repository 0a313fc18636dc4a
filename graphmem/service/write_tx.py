"""The write transaction of a planned batch: what the plan decided before the transaction is decided again inside
it, under locks, wherever a concurrent writer could have changed the answer since.

Two decisions cannot be taken before the transaction: whether an exact duplicate (same namespace, kind and
content hash) was committed since the plan's check, and whether a draft's id was created since. The first is
serialised by a lock node per (namespace, content hash bucket), MERGEd and set first (``memory/lock_hashes``),
and read again under it (``memory/by_hash``); the second by MERGE on (namespace, id), whose uniqueness
constraint lets one writer create. A create that lost either race becomes what a later, sequential write would
have been: a strengthening of the stored memory (exact duplicate), or ``exists`` (the same id); its link rows
follow it.
Near duplicates (vector similarity) stay best effort, found before the transaction.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graphmem.models import WriteAction, WriteResult, trust_of
from graphmem.service.planning import WritePlan, hash_target
from graphmem.store.store import Row, Tx

LOCK_BUCKET_CHARS = 3
"""Hex digits of the content hash that name its lock node: at most 16**3 = 4096 lock nodes per namespace, kept
(so never deleted while a writer waits on one); two different contents share a lock 1 time in 4096."""

Lost = dict[str, tuple[WriteAction, str]]
"""Planned creates that were not created here: id -> (STRENGTHENED or EXISTS, the stored memory's id)."""


async def apply_plan(tx: Tx, plan: WritePlan, *, dedupe: bool, at: datetime) -> list[WriteResult]:
    """Write ``plan`` in the open transaction ``tx``; returns every draft's result as decided here.

    Idempotent, as the driver may run it again after a deadlock: it computes everything from the plan and from
    what it reads in this transaction."""
    lost: Lost = {}
    if plan.creates:
        namespace = plan.creates[0].namespace
        if dedupe:
            hashes = sorted({m.content_hash for m in plan.creates if m.content_hash})
            keys = sorted({lock_key(namespace, h) for h in hashes})
            await tx.run("memory/lock_hashes", keys=keys, at=at)
            stored = [r for r in await tx.run("memory/by_hash", hashes=hashes, namespace=namespace)
                      if tx.integrity.passed(r["signed"])]
            for memory in plan.creates:
                if memory.id in plan.summary_ids:  # a summary replaces its task's summary; it merges into nothing
                    continue
                hit = hash_target(stored, memory.content_hash, memory.kind.value, trust_of(memory))
                if hit is not None:
                    lost[memory.id] = (WriteAction.EXISTS if hit == memory.id else WriteAction.STRENGTHENED, hit)
        rows = [m.to_row(v) for m, v in zip(plan.creates, plan.create_vectors, strict=True) if m.id not in lost]
        if rows:
            lost.update({r["id"]: (WriteAction.EXISTS, r["id"])
                         for r in await tx.run("memory/create", rows=rows) if not r["created"]})
    for name, step_rows in link_rows(plan, lost):
        if step_rows:
            await tx.run(name, rows=step_rows)
    return final_results(plan, lost)


def lock_key(namespace: str, content_hash: str) -> str:
    """The key of the lock node that writers of ``content_hash`` in ``namespace`` take turns on."""
    return f"{namespace}\u0000{content_hash[:LOCK_BUCKET_CHARS]}"


def link_rows(plan: WritePlan, lost: Lost) -> list[tuple[str, list[dict[str, Any]]]]:
    """The rows of the statements after memory/create, in order, with the creates that were lost redirected to the
    stored memory (strengthened) or dropped (exists, and graph construction of a memory not created here)."""
    to = {planned: stored for planned, (_, stored) in lost.items()}
    exists = {planned for planned, (action, _) in lost.items() if action is WriteAction.EXISTS}
    strengthen = [{**r, "id": to.get(r["id"], r["id"])} for r in plan.strengthen_rows]
    strengthen += [{**row, "id": to[m.id]} for m, row in zip(plan.creates, plan.create_strengthen, strict=True)
                   if m.id in to and m.id not in exists]

    def drafted(rows: Iterable[Row], *ends: str) -> list[Row]:
        """Rows of what the drafts asked for: they follow a strengthened memory, and go with an existing one."""
        return [{**r, **{e: to.get(r[e], r[e]) for e in ends}} for r in rows if r["memory_id"] not in exists]

    def built(rows: Iterable[Row], *ends: str) -> list[Row]:
        """Graph construction rows: only for memories created here."""
        return [{**r, **{e: to.get(r[e], r[e]) for e in ends}} for r in rows if r["memory_id"] not in lost]

    return [
        ("memory/strengthen", strengthen),
        ("memory/link_entities", drafted(plan.entity_rows, "memory_id") + built(plan.construct_entity_rows)),
        ("memory/link_derived", drafted(plan.derived_rows, "memory_id", "target_id")),
        ("memory/link_task", drafted(plan.task_rows, "memory_id")),
        ("summary/attach", drafted(plan.summary_rows, "memory_id")),
        ("graph/link_similar", built(plan.similar_rows, "target_id")),
        ("graph/link_follows", built(plan.follow_rows)),
    ]


def final_results(plan: WritePlan, lost: Lost) -> list[WriteResult]:
    out: list[WriteResult] = []
    for r in plan.results:
        if r.action is WriteAction.CREATED and r.id in lost:
            action, stored = lost[r.id]
            out.append(WriteResult(index=r.index, id=stored, action=action,
                                   similarity=1.0 if action is WriteAction.STRENGTHENED else None))
        elif r.action is WriteAction.STRENGTHENED and r.id in lost:
            out.append(r.model_copy(update={"id": lost[r.id][1]}))
        else:
            out.append(r)
    return out


__all__ = ["apply_plan", "final_results", "link_rows", "lock_key"]
