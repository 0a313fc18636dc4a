"""The GraphQL root types. Resolvers parse, call the scoped service and map to GraphQL types; nothing else."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.types import ExecutionContext, get_object_definition

from graphmem.api.consolidation_types import Report as ConsolidationPayload
from graphmem.api.context import Context
from graphmem.api.errors import ErrorCodes, log_unexpected
from graphmem.api.inputs import MemoryInput, RelationInput, TaskInput, TurnInput
from graphmem.api.observability import OperationMetrics
from graphmem.api.reflection_types import ReflectionReport
from graphmem.api.types import (
    Entity,
    MemoryConnection,
    Namespaces,
    Neighborhood,
    SearchPayload,
    Stats,
    Task,
    Turn,
    WritePayload,
)
from graphmem.api.types import Memory as MemoryType
from graphmem.errors import ValidationError
from graphmem.models import (
    MemoryDraft,
    MemoryKind,
    MemoryStatus,
    Relation,
    RelationType,
    Role,
    new_id,
)
from graphmem.models import Task as TaskModel
from graphmem.retrieval.types import Channel, ExpansionMode, Fusion, RerankMode, SummaryMode
from graphmem.service import parse_items
from graphql import GraphQLError

Info = strawberry.Info[Context, None]
MAX_DEPTH = 8
MAX_TOKENS = 4000
MAX_ALIASES = 20


@strawberry.type
class Query:
    @strawberry.field(description="Search memories: seeds -> relation expansion -> rerank, every result explained. "
                                  "query: 1-2000 characters; k: 1-200 results (10); hops: 0-3 (1).")
    async def search(
        self, info: Info, query: str, namespaces: Namespaces = None, kinds: list[MemoryKind] | None = None,
        k: int = 10, hops: int = 1, rerank: RerankMode = RerankMode.FORMULA, fusion: Fusion = Fusion.RRF,
        channels: list[Channel] | None = None, include_superseded: bool = False, as_of: datetime | None = None,
        created_after: datetime | None = None, created_before: datetime | None = None,
        consensus: Annotated[bool, strawberry.argument(description=(
            "Demote results that disagree with the majority of the results about their subject, and put results "
            "that restate the query word for word last (poisoning defences; scoreParts.dissent says why)."))] = False,
        min_trust: Annotated[float, strawberry.argument(description=(
            "Keep apart memories whose writer's trust is below this (0..1; a memory without provenance counts "
            "as 1): such a memory is no result, no seed and leads nowhere. Whatever it is, every score is "
            "multiplied by its memory's trust."))] = 0.0,
        expansion_mode: Annotated[ExpansionMode, strawberry.argument(description=(
            "How the expansion scores what it reached: SPREADING (default) or PPR, personalised PageRank over the "
            "local subgraph around the direct hits (statement by statement: slower)."))] = ExpansionMode.SPREADING,
        summaries: Annotated[SummaryMode, strawberry.argument(description=(
            "Task summaries: LEAD (default) down to the nearest turns and facts of their tasks, without returning "
            "them; RETURN them too; HIDE: neither returned nor climbed down from (the expansion still walks from "
            "them as from any memory)."))] = SummaryMode.LEAD,
    ) -> SearchPayload:
        for name, given in (("kinds", kinds), ("channels", channels)):
            if given is not None and not given:  # as namespaces: [] is; null is the way to say "the default"
                raise ValidationError(f"{name}: give at least one, or leave it out (null) for the default", field=name)
        options: dict[str, object] = {
            "k": k, "hops": hops, "rerank": rerank, "fusion": fusion, "as_of": as_of,
            "created_after": created_after, "created_before": created_before, "consensus": consensus,
            "min_trust": min_trust, "kinds": tuple(kinds) if kinds else None, "expansion_mode": expansion_mode,
            "summaries": summaries,
        }
        if channels:
            options["channels"] = tuple(channels)
        if include_superseded:
            options["statuses"] = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)
        response = await info.context.service.search(query, namespaces, **options)
        return SearchPayload.from_domain(response)

    @strawberry.field(description="One memory by id (in the given namespace, or any you may read).")
    async def memory(self, info: Info, id: strawberry.ID, namespace: str | None = None) -> MemoryType:
        return MemoryType.from_domain(await info.context.service.get_memory(str(id), namespace))

    @strawberry.field(description="Memories of a namespace, newest first, with cursor pagination (first: 1-200).")
    async def memories(self, info: Info, namespace: str, kinds: list[MemoryKind] | None = None,
                       statuses: list[MemoryStatus] | None = None, first: int = 50,
                       after: str | None = None) -> MemoryConnection:
        page = await info.context.service.memories(namespace, kinds=kinds, statuses=statuses or [MemoryStatus.ACTIVE],
                                                   first=first, after=after)
        return MemoryConnection.from_domain(page)

    @strawberry.field(description="Nodes and typed edges around a memory, ready for a graph view. No walk reaches "
                                  "a quarantined memory; one asked for is shown alone.")
    async def neighborhood(self, info: Info, namespace: str, id: strawberry.ID, hops: int = 1,
                           types: list[str] | None = None) -> Neighborhood:
        return Neighborhood.from_domain(await info.context.service.neighborhood(namespace, str(id), hops=hops,
                                                                                types=types))

    @strawberry.field(description="A task with its turns and the memories derived from it.")
    async def task(self, info: Info, namespace: str, id: strawberry.ID) -> Task:
        return Task.from_domain(await info.context.service.task(namespace, str(id)))

    @strawberry.field(description="Entities of a namespace, most mentioned first (first: 1-200).")
    async def entities(self, info: Info, namespace: str, first: int = 50) -> list[Entity]:
        return [Entity(name=e.name, kind=e.kind, memories=e.memories)
                for e in await info.context.service.entities(namespace, first)]

    @strawberry.field(description="Counts of a namespace.")
    async def stats(self, info: Info, namespace: str) -> Stats:
        return Stats.from_domain(await info.context.service.stats(namespace))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Write a batch of memories in one transaction (near-duplicates strengthen "
                                     "existing memories). A replayed requestId returns the first result.")
    async def write_memories(self, info: Info, memories: list[MemoryInput], request_id: str | None = None,
                             dedupe: bool = True) -> WritePayload:
        drafts = parse_items(MemoryDraft, [m.to_raw() for m in memories])
        return WritePayload.from_domain(await info.context.service.write_memories(drafts, request_id=request_id,
                                                                                  dedupe=dedupe))

    @strawberry.mutation(description="Edit a memory; new content is re-embedded. Arguments left out (or null) "
                                     "keep their value; clearValidUntil removes validUntil (valid again with no end). "
                                     "An edit leaves the memory trusted no more than the editing token, and new "
                                     "content names that token as its writer.")
    async def update_memory(self, info: Info, namespace: str, id: strawberry.ID, content: str | None = None,
                            tags: list[str] | None = None, confidence: float | None = None,
                            importance: float | None = None, valid_from: datetime | None = None,
                            valid_until: datetime | None = None, clear_valid_until: bool = False) -> MemoryType:
        memory = await info.context.service.update_memory(
            namespace, str(id), content=content, tags=tags, confidence=confidence, importance=importance,
            valid_from=valid_from, valid_until=valid_until, clear_valid_until=clear_valid_until)
        return MemoryType.from_domain(memory)

    @strawberry.mutation(description="Soft delete (restore undoes it). Returns the ids changed.")
    async def delete_memories(self, info: Info, namespace: str, ids: list[strawberry.ID]) -> list[str]:
        return await info.context.service.delete_memories(namespace, [str(i) for i in ids])

    @strawberry.mutation(description="Restore soft-deleted memories. Returns the ids changed.")
    async def restore_memories(self, info: Info, namespace: str, ids: list[strawberry.ID]) -> list[str]:
        return await info.context.service.restore_memories(namespace, [str(i) for i in ids])

    @strawberry.mutation(description="Admins: make quarantined memories (flagged by the poisoning screen at write) "
                                     "active. Returns the ids changed.")
    async def release_memories(self, info: Info, namespace: str, ids: list[strawberry.ID]) -> list[str]:
        return await info.context.service.release_memories(namespace, [str(i) for i in ids])

    @strawberry.mutation(description="Admins: merge the namespace's memories that say the same thing (consolidation): "
                                     "each cluster into its best-supported member, or with an LLM configured into a "
                                     "new memory with the merged text; the others archived with MERGED_INTO, never "
                                     "deleted. One transaction per cluster. dryRun: plan only, write nothing.")
    async def consolidate(self, info: Info, namespace: str, dry_run: bool = False) -> ConsolidationPayload:
        return ConsolidationPayload.from_domain(await info.context.service.consolidate(namespace, dry_run=dry_run))

    @strawberry.mutation(description="Create or update typed, weighted edges. Returns how many were written. A "
                                     "SUPERSEDES edge also marks its target superseded (status, validUntil), as "
                                     "reflection does: search then hides it, asOf still finds it. Not a memory "
                                     "trusted more than the edge's source memory or the calling token (FORBIDDEN).")
    async def relate(self, info: Info, namespace: str, relations: list[RelationInput],
                     request_id: str | None = None) -> int:
        parsed = parse_items(Relation, [{"source_id": r.source_id, "target_id": r.target_id, "type": r.type,
                                         "weight": r.weight, "confidence": r.confidence, "source": r.source}
                                        for r in relations])
        return await info.context.service.relate(namespace, parsed, request_id)

    @strawberry.mutation(description="Remove one typed edge. True when it existed.")
    async def unrelate(self, info: Info, namespace: str, source_id: str, target_id: str,
                       type: RelationType) -> bool:
        return await info.context.service.unrelate(namespace, source_id, target_id, type.value)

    @strawberry.mutation(description="Open a task (its interaction log).")
    async def start_task(self, info: Info, task: TaskInput, request_id: str | None = None) -> Task:
        # Without an id, a request id names the task, so that a retried startTask is a replay, not a new task.
        if task.id is not None and not task.id.strip():
            raise ValidationError("id: a task id is not blank (leave it out to get a new one)", field="id")
        task_id = task.id or (request_task_id(task.namespace, request_id) if request_id else new_id())
        (model,) = parse_items(TaskModel, [{"namespace": task.namespace, "agent": task.agent, "title": task.title,
                                            "id": task_id}], single=True)
        return Task.from_domain(await info.context.service.start_task(model, request_id))

    @strawberry.mutation(description="Append turns to a task's log.")
    async def log_turns(self, info: Info, namespace: str, task_id: str, turns: list[TurnInput],
                        request_id: str | None = None) -> list[Turn]:
        pairs: list[tuple[Role, str]] = [(t.role, t.content) for t in turns]
        logged = await info.context.service.log_turns(namespace, task_id, pairs, request_id)
        return [Turn.from_domain(t) for t in logged]

    @strawberry.mutation(description="End a task (it joins the reflection queue; one reflected while open joins it "
                                     "again when turns came after). With reflect: true the task is reflected on "
                                     "now; a failed reflection leaves the task ended and queued, its error in "
                                     "Task.reflection (failed at once for a task without turns). Ending it again "
                                     "returns it; another outcome is CONFLICT.")
    async def end_task(self, info: Info, namespace: str, id: strawberry.ID, outcome: str | None = None,
                       reflect: bool = False) -> Task:
        return Task.from_domain(await info.context.service.end_task(namespace, str(id), outcome, reflect=reflect))

    @strawberry.mutation(description="Reflect on a task now: an LLM distils facts, typed edges and lessons from its "
                                     "log, written in one transaction. A task reflected before, with no turn "
                                     "since, returns that report (replayed) unless force.")
    async def reflect(self, info: Info, namespace: str, task_id: strawberry.ID,
                      force: bool = False) -> ReflectionReport:
        return ReflectionReport.from_domain(await info.context.service.reflect(namespace, str(task_id), force=force))


def request_task_id(namespace: str, request_id: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"graphmem:{namespace}:{request_id}").hex


def root_operation_names() -> frozenset[str]:
    """Every root field in PascalCase (``writeMemories`` -> ``WriteMemories``): the names of graphql/operations/."""
    names = (field.python_name for root in (Query, Mutation)
             for field in get_object_definition(root, strict=True).fields)
    return frozenset("".join(part.capitalize() for part in name.split("_")) for name in names)


class Schema(strawberry.Schema):
    def process_errors(self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None) -> None:
        """Each error is logged once: a traceback for an unexpected one here, one line for the rest (ErrorCodes)."""
        log_unexpected(errors, execution_context)


schema = Schema(
    query=Query, mutation=Mutation,
    extensions=[OperationMetrics, ErrorCodes, lambda: QueryDepthLimiter(max_depth=MAX_DEPTH),
                lambda: MaxTokensLimiter(max_token_count=MAX_TOKENS),
                lambda: MaxAliasesLimiter(max_alias_count=MAX_ALIASES)],
)
