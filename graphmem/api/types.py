"""GraphQL types: one per domain type, each built by ``from_domain``."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from graphmem import models
from graphmem.api import enums as _enums  # noqa: F401  (registers the enums first)
from graphmem.api.reflection_types import ReflectionState
from graphmem.retrieval import types as rtypes
from graphmem.service import browse

if TYPE_CHECKING:
    from graphmem.api.context import Context

from graphmem.models import MemoryKind, MemoryStatus, Role, WriteAction
from graphmem.retrieval.types import RerankMode


@strawberry.type
class KeyValue:
    key: str
    value: str


@strawberry.type
class Edge:
    """A typed edge of a memory (outgoing or incoming)."""

    source_id: str
    target_id: str
    type: str
    weight: float | None
    confidence: float | None


@strawberry.type
class Memory:
    id: strawberry.ID
    namespace: str
    kind: MemoryKind
    content: str
    confidence: float
    importance: float
    access_count: int
    last_accessed_at: datetime | None
    created_at: datetime
    updated_at: datetime
    valid_from: datetime | None
    valid_until: datetime | None
    expires_at: datetime | None
    status: MemoryStatus
    tags: list[str]
    source: str | None
    sources: list[str]
    reinforced_count: int
    writer: str | None = strawberry.field(description="The token that wrote it (signed with it). What "
                                          "reflection and a task summary write from a task carries the task's "
                                          "writer and lowest trust, so a conversation cannot launder itself into "
                                          "trusted facts. Null: written before provenance, imported, or by graphmem "
                                          "itself from a task without provenance.")
    trust: float | None = strawberry.field(description="Its writer's trust, 0..1 (signed); search multiplies its "
                                           "score by it. Null counts as 1.")
    metadata: list[KeyValue]
    signature_key: str | None = strawberry.field(description="The key id that signed this memory (HMAC-SHA256).")
    integrity: str = strawberry.field(
        description="ok; or why its signature failed (unsigned, unknown_key, mismatch): only with the server's "
                    "integrity_failures = flag, otherwise a memory that fails is never returned.")

    @strawberry.field(description="Typed edges touching this memory (batched per request); none of a quarantined "
                                  "memory, on either end.")
    async def relations(self, info: strawberry.Info[Context, None]) -> list[Edge]:
        rows = await info.context.loaders.relations.load((self.namespace, str(self.id)))
        return [Edge(source_id=r["source_id"], target_id=r["target_id"], type=r["type"], weight=r["weight"],
                     confidence=r["confidence"]) for r in rows]

    @strawberry.field(description="The memory this one was merged into by consolidation (its MERGED_INTO edge): "
                                  "read that one instead; null when it was not merged.")
    async def merged_into(self, info: strawberry.Info[Context, None]) -> str | None:
        rows = await info.context.loaders.relations.load((self.namespace, str(self.id)))
        return next((r["target_id"] for r in rows if r["type"] == "MERGED_INTO" and r["source_id"] == str(self.id)),
                    None)

    @classmethod
    def from_domain(cls, m: models.Memory) -> Memory:
        return cls(
            id=strawberry.ID(m.id), namespace=m.namespace, kind=m.kind, content=m.content, confidence=m.confidence,
            importance=m.importance, access_count=m.access_count, last_accessed_at=m.last_accessed_at,
            created_at=m.created_at, updated_at=m.updated_at, valid_from=m.valid_from, valid_until=m.valid_until,
            expires_at=m.expires_at, status=m.status, tags=list(m.tags), source=m.source, sources=list(m.sources),
            reinforced_count=m.reinforced_count, writer=m.writer, trust=m.trust, signature_key=m.signature_key,
            integrity=m.integrity,
            metadata=[KeyValue(key=k, value=v) for k, v in sorted(m.metadata.items())],
        )


@strawberry.type
class PathStep:
    source_id: str
    target_id: str
    type: str
    weight: float


@strawberry.type
class ChannelScore:
    channel: str
    score: float
    rank: int


@strawberry.type
class ScoreParts:
    channels: list[ChannelScore]
    fused: float
    expansion: float
    similarity: float
    recency: float
    frequency: float
    confidence: float
    in_time_range: bool = strawberry.field(description="Created inside the time range the query names (the "
                                                       "formula's time term).")
    entity: float = strawberry.field(description="Share of the entities the query names that the memory is ABOUT.")
    text: float = strawberry.field(default=0.0, description="The squared share of the query's content words that "
                                   "it contains (the formula's text term).")
    length: float = strawberry.field(default=0.0, description="The formula's length prior (1 for a memory of "
                                     "200 characters or more: a short reply says little).")
    question: bool = strawberry.field(default=False, description="It asks rather than tells (its content ends "
                                      "with a question mark): the formula's question term was taken off.")
    speaker: bool = strawberry.field(default=False, description="It is said by someone the query names (its "
                                     "content opens with that name and a colon): the formula's speaker term was "
                                     "added.")
    answer: bool = strawberry.field(default=False, description="It holds the kind of answer the query asks for "
                                    "(a place, a title or a number it does not name itself): the formula's answer "
                                    "term was added.")
    context: float = strawberry.field(description="What its FOLLOWS neighbours among the candidates added (the "
                                                  "turn before or after it matched the query).")
    covered_by: str | None = strawberry.field(description="A better result that already covers the turns this "
                                                          "one derives from (so this one moved back).")
    rerank: float | None
    dissent: str | None = strawberry.field(default=None, description="Why the consensus stage demoted it (it "
                                           "disagrees with the majority of the results about its subject, or "
                                           "it restates the query word for word).")
    lesson: float = strawberry.field(default=0.0, description="The bonus of a lesson about the query's situation "
                                     "(what reflection learnt from a failure comes first).")
    trust: float = strawberry.field(default=1.0, description="Its writer's trust: every term of its score was "
                                    "multiplied by it.")

    @classmethod
    def from_domain(cls, p: rtypes.ScoreParts) -> ScoreParts:
        return cls(channels=[ChannelScore(channel=c, score=s, rank=p.ranks.get(c, 0)) for c, s in p.channels.items()],
                   fused=p.fused, expansion=p.expansion, similarity=p.similarity, recency=p.recency,
                   frequency=p.frequency, confidence=p.confidence, in_time_range=p.in_time_range,
                   entity=p.entity, text=p.text, length=p.length, question=p.question, speaker=p.speaker,
                   answer=p.answer, context=p.context,
                   covered_by=p.covered_by,
                   rerank=p.rerank, dissent=p.dissent, lesson=p.lesson, trust=p.trust)


@strawberry.type
class SearchResult:
    memory: Memory
    score: float
    parts: ScoreParts
    path: list[PathStep] = strawberry.field(description="Edges from the seed that reached this memory; "
                                                        "empty for a memory found directly.")
    seed_id: str | None

    @classmethod
    def from_domain(cls, r: rtypes.SearchResult) -> SearchResult:
        return cls(memory=Memory.from_domain(r.memory), score=r.score, parts=ScoreParts.from_domain(r.parts),
                   path=[PathStep(source_id=p.source_id, target_id=p.target_id, type=p.type, weight=p.weight)
                         for p in r.path], seed_id=r.seed_id)


@strawberry.type
class StageTiming:
    stage: str
    ms: float


@strawberry.type
class SearchPayload:
    query: str
    results: list[SearchResult]
    rerank: RerankMode = strawberry.field(description="The reranker used (formula when llm fell back).")
    fallback_reason: str | None
    timings: list[StageTiming]
    cached: bool

    @classmethod
    def from_domain(cls, r: rtypes.SearchResponse) -> SearchPayload:
        return cls(query=r.query, results=[SearchResult.from_domain(x) for x in r.results], rerank=r.rerank,
                   fallback_reason=r.fallback_reason, cached=r.cached,
                   timings=[StageTiming(stage=k, ms=v) for k, v in r.timings_ms.items()])


@strawberry.type
class MemoryConnection:
    items: list[Memory]
    next_cursor: str | None

    @classmethod
    def from_domain(cls, p: browse.Page) -> MemoryConnection:
        return cls(items=[Memory.from_domain(m) for m in p.items], next_cursor=p.next_cursor)


@strawberry.type
class GraphNode:
    key: str
    id: str
    label: str
    kind: str | None
    content: str | None
    status: str | None
    integrity: str = strawberry.field(default="ok", description="As Memory.integrity: ok, or (only with the "
                                      "server's integrity_failures = flag) why the memory's signature failed.")


@strawberry.type
class GraphEdge:
    source: str
    target: str
    type: str
    weight: float


@strawberry.type
class Neighborhood:
    center: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    truncated: bool = strawberry.field(description="The walk stopped at its limit of paths (200): more edges lie "
                                                   "around (a busy entity or task) than are shown.")

    @classmethod
    def from_domain(cls, n: browse.Neighborhood) -> Neighborhood:
        return cls(center=n.center, nodes=[GraphNode(**x.model_dump()) for x in n.nodes],
                   edges=[GraphEdge(**e.model_dump()) for e in n.edges], truncated=n.truncated)


@strawberry.type
class Turn:
    id: strawberry.ID
    task_id: str
    seq: int
    role: Role
    speaker: str | None
    content: str
    at: datetime

    @classmethod
    def from_domain(cls, t: models.Turn) -> Turn:
        return cls(id=strawberry.ID(t.id), task_id=t.task_id, seq=t.seq, role=t.role, speaker=t.speaker,
                   content=t.content, at=t.at)


@strawberry.type
class Task:
    id: strawberry.ID
    namespace: str
    agent: str
    title: str | None
    status: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    writer: str | None = strawberry.field(description="The token that started it (null: none).")
    trust: float | None = strawberry.field(
        description="The lowest trust of the tokens that started it or logged its turns; what reflection and its "
                    "summary write from it carry this trust (null: none, counted as 1).")

    @strawberry.field(description="The interaction log, in order.")
    async def turns(self, info: strawberry.Info[Context, None]) -> list[Turn]:
        return [Turn.from_domain(t) for t in await info.context.loaders.turns.load((self.namespace, str(self.id)))]

    @strawberry.field(description="Memories derived from this task.")
    async def memories(self, info: strawberry.Info[Context, None]) -> list[Memory]:
        found = await info.context.loaders.task_memories.load((self.namespace, str(self.id)))
        return [Memory.from_domain(m) for m in found]

    @strawberry.field(description="Its summary: one episodic memory of what the task was, what was done and its "
                                  "outcome (written by reflection, or extractively at its end when configured); "
                                  "null when it has none.")
    async def summary(self, info: strawberry.Info[Context, None]) -> Memory | None:
        found = await info.context.service.task_summary(self.namespace, str(self.id))
        return Memory.from_domain(found) if found is not None else None

    @strawberry.field(description="Its reflection: queue status, last error, and the report once reflected.")
    async def reflection(self, info: strawberry.Info[Context, None]) -> ReflectionState:
        return ReflectionState.from_row(await info.context.service.reflection_state(self.namespace, str(self.id)))

    @classmethod
    def from_domain(cls, t: models.Task) -> Task:
        return cls(id=strawberry.ID(t.id), namespace=t.namespace, agent=t.agent, title=t.title, status=t.status.value,
                   started_at=t.started_at, ended_at=t.ended_at, outcome=t.outcome, writer=t.writer, trust=t.trust)


@strawberry.type
class Entity:
    name: str
    kind: str | None
    memories: int


@strawberry.type
class Count:
    key: str
    n: int


@strawberry.type
class Stats:
    namespace: str
    memories: list[Count] = strawberry.field(description="By 'kind/status' ('semantic/active', ...); a memory past "
                                              "its expiry counts as 'kind/expired' (reads hide it; the life "
                                              "cycle's sweep removes it).")
    edges: list[Count]
    nodes: list[Count]

    @classmethod
    def from_domain(cls, s: browse.Stats) -> Stats:
        def counts(d: dict[str, int]) -> list[Count]:
            return [Count(key=k, n=v) for k, v in sorted(d.items())]

        return cls(namespace=s.namespace, memories=counts(s.memories), edges=counts(s.edges), nodes=counts(s.nodes))


@strawberry.type
class WriteResult:
    index: int
    id: str
    action: WriteAction
    similarity: float | None
    quarantined: str | None = strawberry.field(
        default=None, description="Why the memory was stored quarantined (the poisoning screen's reason), if it was.")


@strawberry.type
class WritePayload:
    items: list[WriteResult]
    replayed: bool

    @classmethod
    def from_domain(cls, b: models.BatchResult) -> WritePayload:
        return cls(items=[WriteResult(index=i.index, id=i.id, action=i.action, similarity=i.similarity,
                                      quarantined=i.quarantined) for i in b.items], replayed=b.replayed)


Namespaces = Annotated[list[str] | None, strawberry.argument(
    description="Namespaces to search; default: all yours plus the shared one.")]
