"""GraphQL types of reflection: what one reflection wrote, and a task's reflection state."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry

from graphmem.api import enums as _enums  # noqa: F401  (registers the enums first)
from graphmem.models import MemoryKind, WriteAction
from graphmem.reflection import ReflectionReport as Report
from graphmem.reflection.service import WrittenMemory as Written
from graphmem.store.records import native


@strawberry.type(description="A memory a reflection wrote: created, or an existing one it strengthened.")
class ReflectedMemory:
    id: strawberry.ID
    kind: MemoryKind
    content: str
    action: WriteAction
    similarity: float | None

    @classmethod
    def from_domain(cls, m: Written) -> ReflectedMemory:
        return cls(id=strawberry.ID(m.id), kind=m.kind, content=m.content, action=m.action, similarity=m.similarity)


@strawberry.type(description="A typed edge a reflection wrote.")
class ReflectedEdge:
    source_id: str
    type: str
    target_id: str


@strawberry.type(description="What one reflection wrote, what it cost, and how much of the task the model saw.")
class ReflectionReport:
    task_id: str
    namespace: str
    facts: list[ReflectedMemory]
    lessons: list[ReflectedMemory]
    edges: list[ReflectedEdge]
    summary: ReflectedMemory | None = strawberry.field(description=(
        "The task's summary, written in the same LLM call and transaction as the facts (null: the model gave none)."))
    superseded: list[str] = strawberry.field(description="Ids of memories marked superseded (never deleted).")
    supersedes_refused: int = strawberry.field(description=(
        "Replacements the model asked for but that were refused: by a fact that only restated a known memory, "
        "of a memory this reflection itself wrote or strengthened, or of one already replaced."))
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    turns_shown: int
    turns_omitted: int
    related_shown: int
    dropped_relations: int
    copied_facts: int = strawberry.field(description="Facts that only repeated a memory shown to the model "
                                                     "(not written, not strengthened).")
    replayed: bool = strawberry.field(description="True: the task was reflected before; this is that report.")

    @classmethod
    def from_domain(cls, r: Report) -> ReflectionReport:
        return cls(
            task_id=r.task_id, namespace=r.namespace, facts=[ReflectedMemory.from_domain(m) for m in r.facts],
            lessons=[ReflectedMemory.from_domain(m) for m in r.lessons],
            edges=[ReflectedEdge(source_id=e.source_id, type=e.type, target_id=e.target_id) for e in r.edges],
            summary=ReflectedMemory.from_domain(r.summary) if r.summary is not None else None,
            superseded=r.superseded, supersedes_refused=r.supersedes_refused, llm_calls=r.llm.calls,
            prompt_tokens=r.llm.prompt_tokens,
            completion_tokens=r.llm.completion_tokens, latency_ms=r.latency_ms, turns_shown=r.turns_shown,
            turns_omitted=r.turns_omitted, related_shown=r.related_shown, dropped_relations=r.dropped_relations,
            copied_facts=r.copied_facts,
            replayed=r.replayed,
        )


@strawberry.type(description="A task's place in the reflection queue.")
class ReflectionState:
    status: str | None = strawberry.field(description="pending | running | done | failed (null: never ended).")
    error: str | None = strawberry.field(description="The last failure, kept until a reflection succeeds.")
    attempts: int = strawberry.field(description="Failed attempts so far (a success does not count one; the "
                                     "worker gives up after GRAPHMEM_REFLECTION_MAX_ATTEMPTS).")
    reflected_at: datetime | None
    report: ReflectionReport | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ReflectionState:
        report = Report.model_validate(row["report"]) if row.get("report") else None
        return cls(status=row["status"], error=row["error"], attempts=int(row["attempts"]),
                   reflected_at=native(row["reflected_at"]),
                   report=ReflectionReport.from_domain(report) if report else None)
