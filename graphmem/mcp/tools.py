"""The MCP tools: one handler each, calling the caller's ScopedService and mapping the answer; nothing else.

Access is the service's to check (ScopedService asks the principal on every read and write); a handler only
fills in a namespace the caller left out: a write with the one namespace the token may write, a read of a memory
by id with the namespace it is found in (the token's own first, then every namespace it reads, as memory_get).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from mcp.types import Tool, ToolAnnotations
from pydantic import BaseModel

from graphmem.api.schema import request_task_id  # the id GraphQL gives a retried startTask: the same task
from graphmem.errors import NotFoundError, ValidationError
from graphmem.mcp import inputs as i
from graphmem.mcp import outputs as o
from graphmem.models import MemoryDraft, MemoryStatus, Relation, Role, new_id
from graphmem.models import Task as TaskModel
from graphmem.reflection import ReflectionReport
from graphmem.security import Principal
from graphmem.service import parse_items
from graphmem.service.scoped import ScopedService

A = TypeVar("A", bound=BaseModel)
R = TypeVar("R", bound=BaseModel)
Handler = Callable[[ScopedService, Principal, A], Awaitable[R]]


@dataclass(frozen=True)
class ToolSpec(Generic[A, R]):
    name: str
    title: str
    description: str
    args: type[A]
    result: type[R]
    handler: Handler[A, R]
    read_only: bool
    destructive: bool
    idempotent: bool
    admin_only: bool = False
    """Listed to admin tokens only (another token's call is FORBIDDEN all the same)."""

    def tool(self) -> Tool:
        return Tool(name=self.name, title=self.title, description=self.description,
                    input_schema=self.args.model_json_schema(), output_schema=self.result.model_json_schema(),
                    annotations=ToolAnnotations(title=self.title, read_only_hint=self.read_only,
                                                destructive_hint=self.destructive, idempotent_hint=self.idempotent,
                                                open_world_hint=False))


def own_namespace(principal: Principal) -> str | None:
    """The one namespace the token writes (its home), or None."""
    return next(iter(principal.write)) if len(principal.write) == 1 and not principal.admin else None


def namespace_of(principal: Principal, given: str | None) -> str:
    """``given``, or the only namespace the token may write (INVALID_INPUT when it writes none or several)."""
    if given is not None:
        return given
    if (home := own_namespace(principal)) is not None:
        return home
    raise ValidationError(f"namespace is required: token {principal.name!r} does not write exactly one namespace",
                          field="namespace")


# --- handlers ---------------------------------------------------------------------------------------------


async def write(s: ScopedService, p: Principal, a: i.WriteArgs) -> o.WriteResult:
    ns = namespace_of(p, a.namespace)
    drafts = parse_items(MemoryDraft, [{**m.model_dump(exclude_none=True), "namespace": ns} for m in a.memories])
    return o.WriteResult.of(ns, await s.write_memories(drafts, request_id=a.request_id, dedupe=a.dedupe))


async def search(s: ScopedService, p: Principal, a: i.SearchArgs) -> o.SearchResult:
    options: dict[str, Any] = {"k": a.k, "hops": a.hops, "rerank": a.rerank, "fusion": a.fusion, "as_of": a.as_of,
                               "created_after": a.created_after, "created_before": a.created_before,
                               "consensus": a.consensus, "min_trust": a.min_trust, "expansion_mode": a.expansion_mode,
                               "summaries": a.summaries, "kinds": tuple(a.kinds) if a.kinds else None}
    if a.channels:
        options["channels"] = tuple(a.channels)
    if a.include_superseded:
        options["statuses"] = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)
    response = await s.search(a.query, a.namespaces, **options)
    return o.SearchResult.of(response, full=a.detail == "full")


async def get(s: ScopedService, p: Principal, a: i.GetArgs) -> o.Memory:
    return o.Memory.of(await s.get_memory(a.id, a.namespace))


async def update(s: ScopedService, p: Principal, a: i.UpdateArgs) -> o.Memory:
    changes = a.model_dump(exclude={"namespace", "id"})
    return o.Memory.of(await s.update_memory(namespace_of(p, a.namespace), a.id, **changes))


async def delete(s: ScopedService, p: Principal, a: i.IdsArgs) -> o.Changed:
    ns = namespace_of(p, a.namespace)
    return o.Changed(namespace=ns, changed=await s.delete_memories(ns, a.ids))


async def restore(s: ScopedService, p: Principal, a: i.IdsArgs) -> o.Changed:
    ns = namespace_of(p, a.namespace)
    return o.Changed(namespace=ns, changed=await s.restore_memories(ns, a.ids))


async def relate(s: ScopedService, p: Principal, a: i.RelateArgs) -> o.Related:
    ns = namespace_of(p, a.namespace)
    relations = parse_items(Relation, [r.model_dump() for r in a.relations])
    return o.Related(namespace=ns, written=await s.relate(ns, relations, a.request_id))


async def neighborhood(s: ScopedService, p: Principal, a: i.NeighborhoodArgs) -> o.Neighborhood:
    types = list(a.types) if a.types is not None else None
    if a.namespace is not None:
        return o.Neighborhood.of(await s.neighborhood(a.namespace, a.id, hops=a.hops, types=types))
    home = own_namespace(p)
    if home is not None:
        with contextlib.suppress(NotFoundError):
            return o.Neighborhood.of(await s.neighborhood(home, a.id, hops=a.hops, types=types))
    found = await s.get_memory(a.id)  # not at home: where memory_get finds it (NOT_FOUND names no namespace)
    return o.Neighborhood.of(await s.neighborhood(found.namespace, a.id, hops=a.hops, types=types))


async def task_start(s: ScopedService, p: Principal, a: i.TaskStartArgs) -> o.Task:
    ns = namespace_of(p, a.namespace)
    task_id = a.id or (request_task_id(ns, a.request_id) if a.request_id else new_id())
    (task,) = parse_items(TaskModel, [{"namespace": ns, "agent": a.agent, "title": a.title, "id": task_id}],
                          single=True)
    return o.Task.of(await s.start_task(task, a.request_id))


async def task_log(s: ScopedService, p: Principal, a: i.TaskLogArgs) -> o.Logged:
    ns = namespace_of(p, a.namespace)
    pairs: list[tuple[Role, str]] = [(t.role, t.content) for t in a.turns]
    return o.Logged.of(ns, a.task_id, await s.log_turns(ns, a.task_id, pairs, a.request_id))


async def task_end(s: ScopedService, p: Principal, a: i.TaskEndArgs) -> o.TaskEnded:
    ns = namespace_of(p, a.namespace)
    task = await s.end_task(ns, a.task_id, a.outcome, reflect=a.reflect)
    state = await s.reflection_state(ns, a.task_id)
    report = state.get("report")
    summary = await s.task_summary(ns, a.task_id)
    return o.TaskEnded(task=o.Task.of(task), reflection_status=state.get("status"),
                       reflection_error=state.get("error"),
                       reflection=o.Reflection.of(ReflectionReport.model_validate(report)) if report else None,
                       summary=o.Reflected(id=summary.id, kind=summary.kind.value, content=summary.content,
                                           action="active") if summary is not None else None)


async def reflect(s: ScopedService, p: Principal, a: i.ReflectArgs) -> o.Reflection:
    return o.Reflection.of(await s.reflect(namespace_of(p, a.namespace), a.task_id, force=a.force))


async def stats(s: ScopedService, p: Principal, a: i.StatsArgs) -> o.Stats:
    return o.Stats.of(await s.stats(namespace_of(p, a.namespace)))


async def consolidate(s: ScopedService, p: Principal, a: i.ConsolidateArgs) -> o.Consolidation:
    return o.Consolidation.of(await s.consolidate(a.namespace, dry_run=a.dry_run))


NS_NOTE = " The namespace may be left out when your token writes exactly one namespace."

TOOLS: tuple[ToolSpec[Any, Any], ...] = (
    ToolSpec("memory_search", "Search memory", (
        "Search your long-term memory before you answer anything that may depend on what you learned or did "
        "before (user preferences, facts, earlier tasks, past mistakes). Finds memories similar to the query, "
        "follows typed edges to related ones (hops) and ranks them; each result says why it came back (score, "
        "similarity, and the path of edges that reached it). Default: every namespace your token reads."),
        i.SearchArgs, o.SearchResult, search, read_only=True, destructive=False, idempotent=True),
    ToolSpec("memory_write", "Remember", (
        "Store one or more memories in one transaction: a fact or rule you learned (semantic), something that "
        "happened (episodic), a mistake to avoid (lesson) or short-lived scratch (working). Write each as one "
        "self-contained statement. A near-duplicate of a stored memory strengthens it instead of copying it. "
        "Give a request_id to make a retry safe." + NS_NOTE),
        i.WriteArgs, o.WriteResult, write, read_only=False, destructive=False, idempotent=False),
    ToolSpec("memory_get", "Read a memory", (
        "Read one memory by id, with all its fields. Without namespace it is looked for in every namespace your "
        "token reads."),
        i.GetArgs, o.Memory, get, read_only=True, destructive=False, idempotent=True),
    ToolSpec("memory_update", "Edit a memory", (
        "Change a memory's content (re-embedded), tags, confidence, importance or validity period. Prefer writing "
        "a new memory and relating it with SUPERSEDES when a fact changed over time." + NS_NOTE),
        i.UpdateArgs, o.Memory, update, read_only=False, destructive=True, idempotent=True),
    ToolSpec("memory_delete", "Delete memories", (
        "Soft-delete memories by id: they stop appearing in searches; memory_restore brings them back." + NS_NOTE),
        i.IdsArgs, o.Changed, delete, read_only=False, destructive=True, idempotent=True),
    ToolSpec("memory_restore", "Restore memories", "Undo memory_delete for the given ids." + NS_NOTE,
             i.IdsArgs, o.Changed, restore, read_only=False, destructive=False, idempotent=True),
    ToolSpec("memory_relate", "Relate memories", (
        "Create or update typed, weighted edges between memories (source -[type]-> target): SUPPORTS, "
        "CONTRADICTS, CAUSES, PART_OF, IS_A, SUPERSEDES, RELATES_TO, ... Searches follow these edges." + NS_NOTE),
        i.RelateArgs, o.Related, relate, read_only=False, destructive=False, idempotent=True),
    ToolSpec("memory_neighborhood", "Explore around a memory", (
        "The nodes (memories, entities, tasks, turns) and typed edges around a memory, up to 3 hops: use it to "
        "see what a memory is connected to. Without namespace the memory is looked for in the namespace your token "
        "writes, then in every namespace it reads (as memory_get)."),
        i.NeighborhoodArgs, o.Neighborhood, neighborhood, read_only=True, destructive=False, idempotent=True),
    ToolSpec("task_start", "Start a task", (
        "Open a task: the log of one piece of work or conversation. Log its turns with task_log and end it with "
        "task_end so that what was learned is distilled into memories. Returns the task id." + NS_NOTE),
        i.TaskStartArgs, o.Task, task_start, read_only=False, destructive=False, idempotent=False),
    ToolSpec("task_log", "Log turns", (
        "Append turns (user, assistant, tool or system messages) to a task's log, in order." + NS_NOTE),
        i.TaskLogArgs, o.Logged, task_log, read_only=False, destructive=False, idempotent=False),
    ToolSpec("task_end", "End a task", (
        "End a task with its outcome. With reflect: true an LLM reads the log now and writes the facts and "
        "lessons worth keeping (slow); otherwise the task waits in the reflection queue. A failed reflection "
        "leaves the task ended, its error in reflection_error." + NS_NOTE),
        i.TaskEndArgs, o.TaskEnded, task_end, read_only=False, destructive=False, idempotent=False),
    ToolSpec("memory_reflect", "Reflect on a task", (
        "Distil the turns a task logged so far into facts, lessons and typed edges with an LLM, now (slow). An open "
        "task is reflected too; turns it logs after that are reflected once it ends (task_end queues it again). "
        "An ended task is otherwise reflected by the reflection worker, or at once with task_end reflect: true. "
        "A task reflected before, with no turn since, returns that report (replayed: true) unless force." + NS_NOTE),
        i.ReflectArgs, o.Reflection, reflect, read_only=False, destructive=False, idempotent=True),
    ToolSpec("memory_stats", "Memory statistics", (
        "Counts of one namespace: memories by kind and status, edges by type, nodes by label. Without namespace it "
        "reads the one namespace your token writes (a token that writes none or several must name it); it never "
        "sums several namespaces."),
        i.StatsArgs, o.Stats, stats, read_only=True, destructive=False, idempotent=True),
    ToolSpec("memory_consolidate", "Consolidate memories (admin tokens only)", (
        "Admin tokens only: merge the memories of a namespace that say the same thing (near-identical meaning and "
        "the same names, numbers and dates) into one each; the others are archived (hidden from search, kept with "
        "a MERGED_INTO link), never deleted. Run with dry_run first to see the clusters. Running it again changes "
        "nothing."),
        i.ConsolidateArgs, o.Consolidation, consolidate, read_only=False, destructive=True, idempotent=True,
        admin_only=True),
)
BY_NAME: dict[str, ToolSpec[Any, Any]] = {t.name: t for t in TOOLS}
