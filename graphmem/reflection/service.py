"""ReflectionService: after a task, an LLM reviews its log and the memories it touches; the distilled facts,
their edges, provenance, superseded facts, lessons and the task's reflected mark are written in ONE transaction.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from graphmem.errors import ConfigError, GraphmemError, NotFoundError, ValidationError
from graphmem.llm import LLMClient
from graphmem.models import (
    Memory,
    MemoryDraft,
    MemoryKind,
    Task,
    TaskStatus,
    Turn,
    Vector,
    WriteAction,
    provenance,
    trust_of,
    utcnow,
)
from graphmem.reflection.locks import KeyedLocks
from graphmem.reflection.output import ReflectionOutput, check_references, constrained_schema
from graphmem.reflection.plan import ReflectionPlan, plan_reflection, resolve_rows
from graphmem.reflection.prepare import compress_turns, is_small_talk, memory_aliases, render_prompt
from graphmem.retrieval.oversample import MAX_OVERSAMPLE
from graphmem.service.memory_service import MemoryService
from graphmem.service.planning import WritePlan
from graphmem.service.tasks import check_namespace_arg, task_from_map, turn_from_map
from graphmem.service.write_tx import apply_plan
from graphmem.store import Step
from graphmem.store.records import native
from graphmem.store.store import VECTOR_INDEX, Tx
from graphmem.summary import summary_draft

log = logging.getLogger("graphmem.reflection")
QUERY_TURNS = 6
"""How many of the task's turns (the longest user turns) query the vector index for related memories."""


class WrittenMemory(BaseModel):
    id: str
    kind: MemoryKind
    content: str
    action: WriteAction
    similarity: float | None = None


class WrittenEdge(BaseModel):
    source_id: str
    type: str
    target_id: str


class LLMUsage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ReflectionReport(BaseModel):
    """What one reflection wrote (kept on the task, so a replay returns it without calling the model)."""

    task_id: str
    namespace: str
    facts: list[WrittenMemory]
    lessons: list[WrittenMemory]
    edges: list[WrittenEdge]
    superseded: list[str]
    supersedes_refused: int = 0
    """Replacements the model asked for that the rails refused (see plan.resolve_rows)."""
    llm: LLMUsage
    latency_ms: float
    turns_shown: int
    turns_omitted: int
    related_shown: int
    dropped_relations: int = 0
    """Edges the model pointed at facts it did not write, dropped after the repair retry."""
    copied_facts: int = 0
    """"Facts" that repeated a memory shown in the prompt word for word: not written, not strengthened; listed
    in ``facts`` with action ``exists`` and the id of the memory they repeat."""
    summary: WrittenMemory | None = None
    """The task's summary, written in the same call and transaction (None: the model gave none)."""
    dropped_items: int = 0
    """Facts and lessons of the answer that could not be memories (blank or over-long text): left out."""
    replayed: bool = False


def failure_text(exc: BaseException) -> str:
    """How a failed reflection's error is kept on the task."""
    return f"{type(exc).__name__}: {exc}"[:2000]


def turns_since(task: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]) -> bool:
    """Whether any of the task's turns was logged after its last reflection (none when it was never reflected)."""
    reflected = native(task.get("reflected_at"))
    return reflected is not None and any(native(t.get("at")) > reflected for t in turns if t.get("at") is not None)


class ReflectionService:
    def __init__(self, memory: MemoryService, llm: LLMClient | None,
                 observer: Callable[[str, ReflectionReport | None], None] | None = None) -> None:
        self.memory = memory
        self.observer = observer
        """Told each reflection's outcome (ok, replayed, error) and report (metrics)."""
        self.store = memory.store
        self.settings = memory.settings
        self.llm = llm
        self._locks = KeyedLocks()
        """One lock per (namespace, task) being reflected in this process, dropped when free."""

    async def reflect(self, namespace: str, task_id: str, *, force: bool = False) -> ReflectionReport:
        """Reflect on a task. A task reflected before returns its stored report (``replayed``) unless ``force``, or
        unless turns were logged after it (reflected while open: ``task/end`` queues it again then); a re-run
        writes nothing twice (stable ids, idempotent edges and reinforcement)."""
        check_namespace_arg(namespace)
        async with self._locks.hold((namespace, task_id)):
            rows = await self.store.read("task/get", id=task_id, namespace=namespace)
            if not rows:
                raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
            stored = rows[0]["task"]
            if stored.get("reflection_json") and not force and not turns_since(stored, rows[0]["turns"]):
                report = ReflectionReport.model_validate_json(stored["reflection_json"])
                replayed = report.model_copy(update={"replayed": True})
                self._observe("replayed", replayed)
                return replayed
            if self.llm is None:  # before anything else is checked: the server cannot do it, whatever the task
                raise ConfigError("reflection needs an LLM: set GRAPHMEM_LLM_BASE_URL (scripts/llm-server.sh start)")
            task = task_from_map(stored)
            turns = [turn_from_map(t) for t in rows[0]["turns"]]
            if not turns:
                empty = ValidationError(f"task {task_id!r} has no turns to reflect on")
                if task.status is TaskStatus.ENDED:  # no turn can come now: recorded as failed, out of the queue
                    await self.record_failure(namespace, task_id, empty, final=True)
                raise empty
            try:
                report = await self._reflect(task, turns, self.llm)
            except Exception as exc:  # anything (a bug included) is recorded on the task, which stays queued
                self._observe("error", None)
                await self.record_failure(namespace, task_id, exc)
                raise
            self._observe("ok", report)
            return report

    def _observe(self, outcome: str, report: ReflectionReport | None) -> None:
        if self.observer is not None:
            self.observer(outcome, report)

    async def _reflect(self, task: Task, turns: Sequence[Turn], llm: LLMClient) -> ReflectionReport:
        started = time.perf_counter()
        related = await self.related_memories(task.namespace, turns, exclude_task=task.id)
        aliases = memory_aliases(related)
        log_ = compress_turns(turns, self.settings.reflection_turn_tokens)
        system, user = render_prompt(task, log_, aliases)
        shown_turns = {line.seq for line in log_.lines}
        before = (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens)
        output = await llm.complete_json(
            system, user, ReflectionOutput, timeout=self.settings.reflection_timeout_s,
            max_tokens=self.settings.reflection_max_output_tokens,
            check=lambda out, last: check_references(out, memory_aliases=set(aliases), turn_numbers=shown_turns,
                                                   last_try=last),
            schema=constrained_schema(memory_aliases=list(aliases), turn_numbers=sorted(shown_turns),
                                      min_relations=self.settings.reflection_min_relations),
        )
        usage = LLMUsage(calls=llm.usage.calls - before[0], prompt_tokens=llm.usage.prompt_tokens - before[1],
                         completion_tokens=llm.usage.completion_tokens - before[2])
        now = utcnow()
        plan = plan_reflection(output, namespace=task.namespace, task_id=task.id, turns=turns,
                               aliases={a: m.id for a, m in aliases.items()}, now=now,
                               shown={m.content: m.id for m in aliases.values()})
        plan.drafts = [d.model_copy(update=provenance(task)) for d in plan.drafts]  # the task's trust, not more
        protected = frozenset(m.id for m in aliases.values() if trust_of(m) > trust_of(task))  # not superseded
        summary = summary_draft(task, output.summary, turn_ids=[t.id for t in turns], how="reflection")
        drafts = [*plan.drafts, *([summary] if summary is not None else [])]  # a summary is never deduplicated
        batch = await self.memory.plan_write(drafts) if drafts else WritePlan()
        kinds = {m.id: m.kind for m in aliases.values()}

        async def work(tx: Tx) -> ReflectionReport:
            report = await self._write_plan(tx, task, plan, batch, usage, now, summary, protected)
            report.latency_ms = round((time.perf_counter() - started) * 1000, 1)
            report.turns_shown, report.turns_omitted = len(log_.lines), log_.omitted
            report.related_shown, report.dropped_relations = len(aliases), output.dropped_relations
            report.copied_facts, report.dropped_items = len(plan.copies), plan.dropped
            report.facts += [WrittenMemory(id=memory_id, kind=kinds[memory_id], content=content,
                                           action=WriteAction.EXISTS) for content, memory_id in plan.copies]
            await tx.run("reflection/mark_done", id=task.id, namespace=task.namespace, at=now,
                         report=report.model_dump_json())
            return report

        report = await self.memory._transact(task.namespace, "reflect", work)
        log.info("reflected task %s/%s: %d facts, %d lessons, %d edges, %d superseded, %d LLM calls, %.0f ms",
                 task.namespace, task.id, len(report.facts), len(report.lessons), len(report.edges),
                 len(report.superseded), usage.calls, report.latency_ms)
        return report

    async def _write_plan(self, tx: Tx, task: Task, plan: ReflectionPlan, batch: WritePlan, usage: LLMUsage,
                          now: Any, summary: MemoryDraft | None = None,
                          protected: frozenset[str] = frozenset()) -> ReflectionReport:
        """Inside the reflection's transaction: the memories and the task's summary, last in the batch (each one's
        fate decided under the write path's locks), then the edges and supersedes between the memory ids that
        came out."""
        drafts = [*plan.drafts, *([summary] if summary is not None else [])]
        results = await apply_plan(tx, batch, dedupe=True, at=now) if drafts else []
        everything = [WrittenMemory(id=r.id, kind=d.kind, content=d.content, action=r.action, similarity=r.similarity)
                      for d, r in zip(drafts, results, strict=True)]
        written = everything[:len(plan.drafts)]
        created = [w.action is WriteAction.CREATED for w in written]
        edge_rows, supersede_rows, refused = resolve_rows(plan, [w.id for w in written], now=now, created=created,
                                                       protected=protected)
        if edge_rows:
            await tx.run("relation/relate", rows=edge_rows, namespace=task.namespace)
        if supersede_rows:
            await tx.run("memory/supersede", rows=supersede_rows, namespace=task.namespace, source="reflection")
        return ReflectionReport(
            task_id=task.id, namespace=task.namespace, facts=written[:plan.fact_count],
            lessons=written[plan.fact_count:],
            edges=[WrittenEdge(source_id=r["source_id"], type=r["type"], target_id=r["target_id"])
                   for r in edge_rows],
            superseded=[r["old"] for r in supersede_rows], supersedes_refused=refused, llm=usage, latency_ms=0.0,
            turns_shown=0, turns_omitted=0, related_shown=0,
            summary=everything[-1].model_copy(update={"similarity": None}) if summary is not None else None,
        )

    async def related_memories(self, namespace: str, turns: Sequence[Turn], *,
                               exclude_task: str | None = None) -> list[Memory]:
        """The active semantic memories and lessons nearest to the task's most telling turns; without those the
        task itself produced (a re-reflection sees what the first one saw, so its ids mean the same)."""
        limit = self.settings.reflection_related
        texts = sorted((t.content for t in turns if t.role.value == "user" and not is_small_talk(t.content)),
                       key=len, reverse=True)[:QUERY_TURNS]
        if not limit or not texts:
            return []
        own: set[str] = set()
        if exclude_task is not None:
            own = {r["memory"]["id"] for r in await self.store.read(
                "task/memories_of", ids=[exclude_task], namespace=namespace)}
        vectors = await asyncio.to_thread(lambda: [self.memory.embedder.embed_query(t[:1000]) for t in texts])
        filters = {"namespace": namespace, "kinds": [MemoryKind.SEMANTIC.value, MemoryKind.LESSON.value],
                   "exclude": sorted(own)}
        oversample, available = min((limit + len(own)) * 8, MAX_OVERSAMPLE), None
        while True:  # the index ranks all namespaces together: ask deeper while this one's memories are hidden
            rows = await self.store.read("reflection/related", index=VECTOR_INDEX,
                                         embeddings=[Vector(v) for v in vectors], oversample=oversample,
                                         limit=limit, now=utcnow(), **filters)
            if len(rows) >= limit or oversample >= MAX_OVERSAMPLE:
                break
            if available is None:
                available = int((await self.store.read("reflection/related_count", **filters))[0]["n"])
            if len(rows) >= available:
                break
            oversample = min(oversample * 4, MAX_OVERSAMPLE)
        return self.store.memories(r["memory"] for r in rows)

    async def record_failure(self, namespace: str, task_id: str, exc: BaseException, *,
                             worker: str | None = None, final: bool = False) -> bool:
        """Record a failed reflection on the task (pending again, or failed after the last attempt, or at once when
        ``final``: no retry can succeed). With ``worker``: only while that worker's claim holds (the service may have
        recorded it already). Returns whether the task was changed; False too when the store failed (logged)."""
        try:
            return await self.mark_failed(namespace, task_id, failure_text(exc), worker=worker, final=final)
        except GraphmemError:  # the store is down too: the task stays as it was, still queued (or claimed)
            log.warning("could not record the failed reflection of %s/%s", namespace, task_id, exc_info=True)
            return False

    async def mark_failed(self, namespace: str, task_id: str, error: str, *, worker: str | None = None,
                          final: bool = False) -> bool:
        """``record_failure`` with the error's text, raising GraphmemError when the store fails (the batched
        worker keeps such a failure and records it once the store answers)."""
        (rows,) = await self.store.write([Step("reflection/mark_failed", {
            "id": task_id, "namespace": namespace, "at": utcnow(), "error": error,
            "max_attempts": 1 if final else self.settings.reflection_max_attempts, "worker": worker})])
        if rows:
            log.warning("reflection of %s/%s failed: %s", namespace, task_id, error)
        return bool(rows)

    async def status(self, namespace: str, task_id: str) -> dict[str, Any]:
        rows = await self.store.read("reflection/report", id=task_id, namespace=namespace)
        if not rows:
            raise NotFoundError(f"task {task_id!r} not found in {namespace!r}")
        row = dict(rows[0])
        row["report"] = json.loads(row["report"]) if row["report"] else None
        return row
