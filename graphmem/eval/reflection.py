"""The ``turns+reflection`` corpus: the dialog turns of each session, then graphmem's own reflection once per
session with the configured LLM (the real ``ReflectionService``, as ``endTask(reflect: true)`` runs it). Its facts
keep ``DERIVED_FROM`` their source turns, so a hit on a fact reaches its turns as an observation's hit does.

Idempotent: a session (task) whose reflection is stored on it is skipped and its stored report counted; a failed
reflection is recorded on its task by the service, counted here, and tried again by the next run. Without an LLM
the corpus is refused (``ConfigError``, ``INVALID_CONFIG``) before anything is imported.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from graphmem.errors import ConfigError, GraphmemError
from graphmem.importers.plan import ImportPlan
from graphmem.models import Task, WriteAction
from graphmem.reflection.service import ReflectionReport
from graphmem.service import MemoryService

if TYPE_CHECKING:
    from graphmem.llm import LLMClient

REFLECTION_CORPUS = "turns+reflection"
AfterImport = Callable[[MemoryService, ImportPlan], Awaitable[dict[str, Any]]]
"""Run by the evaluation after a sample's import, before its questions; returns what the report records."""
Note = Callable[[str], object]
State = Literal["reflected", "skipped", "failed"]


class Reflector(Protocol):
    """What the corpus needs of ``ReflectionService`` (a fake in unit tests)."""

    async def status(self, namespace: str, task_id: str) -> dict[str, Any]: ...

    async def reflect(self, namespace: str, task_id: str) -> ReflectionReport: ...


def reflects(corpus: str) -> bool:
    """Whether the corpus is written by graphmem's own reflection (and so needs an LLM)."""
    return corpus == REFLECTION_CORPUS


def require_llm(corpus: str, *, configured: bool) -> None:
    """Refuse the reflection corpus without an LLM: the measurement would silently be the ``turns`` one."""
    if reflects(corpus) and not configured:
        raise ConfigError(f"the {REFLECTION_CORPUS} corpus needs an LLM for the reflections: set "
                          "GRAPHMEM_LLM_BASE_URL (scripts/llm-server.sh start)")


@dataclass(frozen=True)
class SessionOutcome:
    task_id: str
    title: str | None
    state: State
    report: ReflectionReport | None = None
    """The reflection's report: written now, or the one stored on the task (skipped)."""
    wall_s: float | None = None
    """Seconds this run spent on it (None when skipped)."""
    error: str | None = None

    def row(self) -> dict[str, Any]:
        out: dict[str, Any] = {"task": self.task_id, "title": self.title, "state": self.state}
        if self.wall_s is not None:
            out["wall_s"] = round(self.wall_s, 1)
        if self.error is not None:
            out["error"] = self.error
        if self.report is not None:
            r = self.report
            out |= {"seconds": round(r.latency_ms / 1000, 1), "llm_calls": r.llm.calls,
                    "prompt_tokens": r.llm.prompt_tokens, "completion_tokens": r.llm.completion_tokens,
                    "facts": len(r.facts), "lessons": len(r.lessons), "edges": len(r.edges),
                    "turns_shown": r.turns_shown, "turns_omitted": r.turns_omitted, "related_shown": r.related_shown}
        return out


def describe(outcome: SessionOutcome) -> str:
    """One progress line about a session."""
    where, r = outcome.title or outcome.task_id, outcome.report
    spent = f"{outcome.wall_s or 0.0:.0f} s"
    if r is None:
        return f"{where}: reflection failed after {spent}: {outcome.error}"
    done = "already reflected, skipped" if outcome.state == "skipped" else f"reflected in {spent}"
    return (f"{where}: {done} ({len(r.facts)} facts, {len(r.lessons)} lessons, {len(r.edges)} edges, "
            f"{r.llm.calls} LLM calls)")


async def reflect_tasks(reflector: Reflector, namespace: str, tasks: Sequence[Task], *, note: Note | None = None,
                        clock: Callable[[], float] = time.perf_counter) -> list[SessionOutcome]:
    """Reflect on each task in order (a later session's reflection sees the facts of the earlier ones), skipping
    those reflected before. A reflection that fails with a graphmem error (the model's output unusable after the
    repair retry, the LLM away) is recorded and the next task goes on; any other error is a bug and propagates."""
    outcomes: list[SessionOutcome] = []
    for i, task in enumerate(tasks, start=1):
        stored = (await reflector.status(namespace, task.id))["report"]
        if stored is not None:
            outcome = SessionOutcome(task.id, task.title, "skipped", ReflectionReport.model_validate(stored))
        else:
            started = clock()
            try:
                report = await reflector.reflect(namespace, task.id)
                outcome = SessionOutcome(task.id, task.title, "reflected", report, clock() - started)
            except GraphmemError as exc:
                outcome = SessionOutcome(task.id, task.title, "failed", wall_s=clock() - started,
                                         error=f"{exc.code}: {exc}"[:500])
        outcomes.append(outcome)
        if note is not None:
            note(f"reflection {i}/{len(tasks)} {describe(outcome)}")
    return outcomes


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "median": None, "min": None, "max": None}
    return {"mean": round(statistics.fmean(values), 1), "median": round(statistics.median(values), 1),
            "min": round(min(values), 1), "max": round(max(values), 1)}


def summarise(namespace: str, outcomes: Sequence[SessionOutcome]) -> dict[str, Any]:
    """The corpus's reflection figures: sessions by state, LLM calls and tokens, what was written (facts by
    write action, lessons, edges, superseded), what was dropped, and seconds per session, over every reflection
    the namespace holds (those of earlier runs included) and per session."""
    reports = [o.report for o in outcomes if o.report is not None]
    facts = [f for r in reports for f in r.facts]
    actions = {a.value: sum(1 for f in facts if f.action is a) for a in WriteAction}
    return {
        "namespace": namespace,
        "sessions": len(outcomes),
        "reflected_now": sum(1 for o in outcomes if o.state == "reflected"),
        "skipped_already_reflected": sum(1 for o in outcomes if o.state == "skipped"),
        "failed": sum(1 for o in outcomes if o.state == "failed"),
        "llm": {"calls": sum(r.llm.calls for r in reports),
                "prompt_tokens": sum(r.llm.prompt_tokens for r in reports),
                "completion_tokens": sum(r.llm.completion_tokens for r in reports)},
        "facts": {"total": len(facts), "by_action": {a: n for a, n in actions.items() if n}},
        "lessons": sum(len(r.lessons) for r in reports),
        "edges": sum(len(r.edges) for r in reports),
        "superseded": sum(len(r.superseded) for r in reports),
        "supersedes_refused": sum(r.supersedes_refused for r in reports),
        "dropped": {"items": sum(r.dropped_items for r in reports),
                    "relations": sum(r.dropped_relations for r in reports),
                    "copied_facts": sum(r.copied_facts for r in reports)},
        "seconds_per_session": _spread([r.latency_ms / 1000 for r in reports]),
        "wall_s_this_run": round(sum(o.wall_s or 0.0 for o in outcomes), 1),
        "per_session": [o.row() for o in outcomes],
    }


def reflection_hook(corpus: str, llm: LLMClient | None, note: Note | None = None) -> AfterImport | None:
    """For the reflection corpus, what runs after each sample's import: one reflection per session with ``llm``
    (summarised under ``reflection`` in the sample's import entry); None for the other corpora."""
    if not reflects(corpus):
        return None
    require_llm(corpus, configured=llm is not None)

    async def after_import(service: MemoryService, plan: ImportPlan) -> dict[str, Any]:
        from graphmem.reflection import ReflectionService

        outcomes = await reflect_tasks(ReflectionService(service, llm), plan.namespace, plan.tasks, note=note)
        return {"reflection": summarise(plan.namespace, outcomes)}

    return after_import


__all__ = [
    "REFLECTION_CORPUS",
    "AfterImport",
    "Reflector",
    "SessionOutcome",
    "reflect_tasks",
    "reflection_hook",
    "reflects",
    "require_llm",
    "summarise",
]
