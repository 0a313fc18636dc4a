"""The service as one caller may use it: every read and write checked against the caller's access.

Front ends (GraphQL now, MCP later) build one ``ScopedService`` per request from the authenticated principal,
so the same rules hold everywhere. A namespace the caller may not read is answered exactly like one that does
not exist: nothing about another namespace can be inferred.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from graphmem.consolidation import ConsolidationReport, Consolidator
from graphmem.errors import GraphmemError, NotFoundError, ValidationError
from graphmem.models import (
    BatchResult,
    Memory,
    MemoryDraft,
    MemoryKind,
    MemoryStatus,
    Relation,
    Role,
    Task,
    Turn,
)
from graphmem.reflection import ReflectionReport, ReflectionService
from graphmem.retrieval import RetrievalService, SearchOptions, SearchResponse
from graphmem.service.browse import BrowseService, EntityCount, Neighborhood, Page, Stats
from graphmem.service.memory_service import MemoryService
from graphmem.summary.service import task_summary, write_extractive

log = logging.getLogger("graphmem.service")


class Access(Protocol):
    """What the service needs of a principal (graphmem.security.tokens.Principal)."""

    @property
    def name(self) -> str: ...

    @property
    def trust(self) -> float: ...

    def require_read(self, namespace: str) -> None: ...

    def require_write(self, namespace: str) -> None: ...

    def require_admin(self) -> None: ...

    def readable(self, requested: Sequence[str] | None, shared_ns: str) -> tuple[str, ...]: ...


class ScopedService:
    def __init__(self, access: Access, memory: MemoryService, retrieval: RetrievalService,
                 browse: BrowseService, *, shared_namespace: str, reflection: ReflectionService | None = None,
                 consolidator: Consolidator | None = None) -> None:
        self.access = access
        self.memory = memory
        self.reflection = reflection or ReflectionService(memory, None)
        self.consolidator = consolidator or Consolidator(memory, memory.settings, self.reflection.llm)
        self.retrieval = retrieval
        self.browse = browse
        self.shared = shared_namespace

    # --- reads ----------------------------------------------------------------------------------
    async def search(self, query: str, namespaces: Sequence[str] | None, **options: Any) -> SearchResponse:
        """Search the given namespaces (default: all the caller's own plus the shared layer, merged)."""
        allowed = self.access.readable(namespaces, self.shared)
        return await self.retrieval.search(query, SearchOptions(namespaces=allowed, **options))

    async def get_memory(self, memory_id: str, namespace: str | None = None) -> Memory:
        allowed = self.access.readable([namespace] if namespace else None, self.shared)
        memory = await self.memory.store.get_memory(memory_id, allowed)
        if memory is None:
            raise NotFoundError(f"memory {memory_id!r} not found")
        return memory

    async def memories(self, namespace: str, *, kinds: Sequence[MemoryKind] | None = None,
                       statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,), first: int = 50,
                       after: str | None = None) -> Page:
        self.access.require_read(namespace)
        return await self.browse.memories(namespace, kinds=kinds, statuses=statuses, first=first, after=after)

    async def neighborhood(self, namespace: str, memory_id: str, *, hops: int = 1,
                           types: Sequence[str] | None = None) -> Neighborhood:
        self.access.require_read(namespace)
        return await self.browse.neighborhood(namespace, memory_id, hops=hops, types=types)

    async def task(self, namespace: str, task_id: str) -> Task:
        self.access.require_read(namespace)
        return await self.memory.tasks.get(namespace, task_id)

    async def entities(self, namespace: str, first: int = 50) -> list[EntityCount]:
        self.access.require_read(namespace)
        return await self.browse.entities(namespace, first)

    async def stats(self, namespace: str) -> Stats:
        self.access.require_read(namespace)
        return await self.browse.stats(namespace)

    # --- writes ---------------------------------------------------------------------------------
    async def write_memories(self, drafts: Sequence[MemoryDraft], *, request_id: str | None = None,
                             dedupe: bool = True) -> BatchResult:
        if not drafts:
            raise ValidationError("empty batch")
        for ns in {d.namespace for d in drafts}:
            self.access.require_write(ns)
        stamped = [d.model_copy(update={"writer": self.access.name, "trust": self.access.trust}) for d in drafts]
        return await self.memory.write_memories(stamped, request_id=request_id, dedupe=dedupe, refuse_changed=True)

    async def update_memory(self, namespace: str, memory_id: str, **changes: Any) -> Memory:
        self.access.require_write(namespace)
        return await self.memory.update_memory(namespace, memory_id, **changes,
                                               editor=(self.access.name, self.access.trust))

    async def delete_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        self.access.require_write(namespace)
        return await self.memory.delete_memories(namespace, ids)

    async def restore_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        self.access.require_write(namespace)
        return await self.memory.restore_memories(namespace, ids)

    async def release_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Quarantined memories made active: admins only (the screen flagged them as aimed at the agent)."""
        self.access.require_admin()
        return await self.memory.release_memories(namespace, ids)

    async def consolidate(self, namespace: str, *, dry_run: bool = False) -> ConsolidationReport:
        """Merge the namespace's memories that say the same thing: admins only (it archives memories that other
        tokens wrote, in a namespace of any tenant)."""
        self.access.require_admin()
        return await self.consolidator.run(namespace, dry_run=dry_run)

    async def relate(self, namespace: str, relations: Sequence[Relation], request_id: str | None = None) -> int:
        self.access.require_write(namespace)
        return await self.memory.relate(namespace, relations, request_id=request_id, trust=self.access.trust)

    async def unrelate(self, namespace: str, source_id: str, target_id: str, type_: str) -> bool:
        self.access.require_write(namespace)
        return await self.memory.unrelate(namespace, source_id, target_id, type_)

    async def start_task(self, task: Task, request_id: str | None = None) -> Task:
        self.access.require_write(task.namespace)
        stamped = task.model_copy(update={"writer": self.access.name, "trust": self.access.trust})
        return await self.memory.tasks.start(stamped, request_id=request_id)

    async def log_turns(self, namespace: str, task_id: str, turns: Sequence[tuple[Role, str]],
                        request_id: str | None = None, at: datetime | None = None) -> list[Turn]:
        self.access.require_write(namespace)
        return await self.memory.tasks.log_turns(namespace, task_id, list(turns), request_id=request_id, at=at,
                                                 trust=self.access.trust)

    async def end_task(self, namespace: str, task_id: str, outcome: str | None = None, *,
                       reflect: bool = False) -> Task:
        """End a task; with ``reflect`` also reflect on it now. A failed reflection does not undo the end, whatever
        it raised (a bug is logged): the task stays queued with the error recorded (see ``reflection_state``)."""
        self.access.require_write(namespace)
        task = await self.memory.tasks.end(namespace, task_id, outcome=outcome)
        summarised = False
        if reflect:
            try:
                summarised = (await self.reflection.reflect(namespace, task_id)).summary is not None
            except GraphmemError:
                pass
            except Exception:  # the reflection service recorded it on the task; the task did end
                log.exception("reflection of %s/%s at its end failed", namespace, task_id)
            task = await self.memory.tasks.get(namespace, task_id)
        if not summarised and self.memory.settings.task_summary == "extractive":
            await write_extractive(self.memory, namespace, task_id)
        return task

    async def task_summary(self, namespace: str, task_id: str) -> Memory | None:
        """The task's active summary (``graphmem.summary``), or None."""
        self.access.require_read(namespace)
        return await task_summary(self.memory, namespace, task_id)

    async def reflect(self, namespace: str, task_id: str, *, force: bool = False) -> ReflectionReport:
        self.access.require_write(namespace)
        return await self.reflection.reflect(namespace, task_id, force=force)

    async def reflection_state(self, namespace: str, task_id: str) -> dict[str, Any]:
        self.access.require_read(namespace)
        return await self.reflection.status(namespace, task_id)
