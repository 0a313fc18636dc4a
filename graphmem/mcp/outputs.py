"""What each MCP tool returns: pydantic models whose JSON schemas are the tools' output schemas.

Each is built from a domain value by ``of(...)``: the MCP surface is its own, so a field added to a domain model
does not change what the tools return.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from graphmem import models
from graphmem.consolidation import ConsolidationReport
from graphmem.reflection import ReflectionReport
from graphmem.reflection.service import WrittenMemory
from graphmem.retrieval import types as rtypes
from graphmem.service import browse


class Out(BaseModel):
    model_config = ConfigDict(frozen=True)


class Memory(Out):
    id: str
    namespace: str
    kind: str
    content: str
    status: str
    confidence: float
    importance: float
    tags: list[str]
    source: str | None
    writer: str | None = Field(default=None, description="The token that wrote it (signed).")
    trust: float | None = Field(default=None, description="Its writer's trust, 0..1 (signed; null counts as 1).")
    created_at: datetime
    updated_at: datetime
    valid_from: datetime | None
    valid_until: datetime | None
    expires_at: datetime | None
    access_count: int
    reinforced_count: int
    metadata: dict[str, str]
    uri: str = Field(description="The memory as an MCP resource.")

    @classmethod
    def of(cls, m: models.Memory) -> Memory:
        return cls(id=m.id, namespace=m.namespace, kind=m.kind.value, content=m.content, status=m.status.value,
                   confidence=m.confidence, importance=m.importance, tags=list(m.tags), source=m.source,
                   writer=m.writer, trust=m.trust,
                   created_at=m.created_at, updated_at=m.updated_at, valid_from=m.valid_from,
                   valid_until=m.valid_until, expires_at=m.expires_at, access_count=m.access_count,
                   reinforced_count=m.reinforced_count, metadata=dict(m.metadata), uri=memory_uri(m.namespace, m.id))


def memory_uri(namespace: str, memory_id: str) -> str:
    return f"memory://{namespace}/{memory_id}"


class WriteItem(Out):
    index: int
    id: str
    action: str = Field(description="created | strengthened (a near-duplicate was reinforced) | exists")
    similarity: float | None
    quarantined: str | None = Field(default=None, description="Why it was stored quarantined (not searched).")


class WriteResult(Out):
    namespace: str
    replayed: bool = Field(description="True: this request_id was seen before; this is the first result.")
    items: list[WriteItem]

    @classmethod
    def of(cls, namespace: str, b: models.BatchResult) -> WriteResult:
        return cls(namespace=namespace, replayed=b.replayed,
                   items=[WriteItem(index=i.index, id=i.id, action=i.action.value, similarity=i.similarity,
                                    quarantined=i.quarantined) for i in b.items])


class PathStep(Out):
    source_id: str
    type: str
    target_id: str


class ScoreParts(Out):
    channels: dict[str, float] = Field(description="Per seed channel, its own score (cosine, BM25, ...).")
    ranks: dict[str, int]
    fused: float
    expansion: float = Field(description="Activation received over edges (0 for a direct hit).")
    similarity: float
    recency: float
    frequency: float
    confidence: float
    entity: float
    text: float = Field(default=0.0, description="Squared share of the query's content words it contains.")
    length: float = Field(default=0.0, description="The formula's length prior (short replies say little).")
    question: bool = Field(default=False, description="It asks rather than tells: the question term was taken off.")
    speaker: bool = Field(default=False, description="It is said by someone the query names: the speaker term was "
                                                     "added.")
    context: float
    in_time_range: bool
    covered_by: str | None
    dissent: str | None = None
    lesson: float = 0.0
    trust: float = 1.0
    rerank: float | None

    @classmethod
    def of(cls, p: rtypes.ScoreParts) -> ScoreParts:
        return cls(channels=dict(p.channels), ranks=dict(p.ranks), fused=p.fused, expansion=p.expansion,
                   similarity=p.similarity, recency=p.recency, frequency=p.frequency, confidence=p.confidence,
                   entity=p.entity, text=p.text, length=p.length, question=p.question, speaker=p.speaker,
                   context=p.context,
                   in_time_range=p.in_time_range, covered_by=p.covered_by,
                   dissent=p.dissent, lesson=p.lesson, trust=p.trust, rerank=p.rerank)


class SearchHit(Out):
    id: str
    namespace: str
    kind: str
    content: str
    score: float
    similarity: float = Field(description="Cosine similarity to the query.")
    created_at: datetime
    path: list[PathStep] = Field(description="Edges from a direct hit to this memory; empty for a direct hit.")
    parts: ScoreParts | None = Field(description="Every score part (detail: full only).")
    memory: Memory | None = Field(description="All the memory's fields (detail: full only).")

    @classmethod
    def of(cls, r: rtypes.SearchResult, *, full: bool) -> SearchHit:
        m = r.memory
        return cls(id=m.id, namespace=m.namespace, kind=m.kind.value, content=m.content, score=round(r.score, 6),
                   similarity=round(r.parts.similarity, 6), created_at=m.created_at,
                   path=[PathStep(source_id=p.source_id, type=p.type, target_id=p.target_id) for p in r.path],
                   parts=ScoreParts.of(r.parts) if full else None, memory=Memory.of(m) if full else None)


class SearchResult(Out):
    query: str
    rerank: str = Field(description="The reranker used (formula when llm fell back).")
    fallback_reason: str | None
    results: list[SearchHit]
    timings_ms: dict[str, float] | None = Field(description="Per stage (detail: full only).")

    @classmethod
    def of(cls, r: rtypes.SearchResponse, *, full: bool) -> SearchResult:
        return cls(query=r.query, rerank=r.rerank.value, fallback_reason=r.fallback_reason,
                   results=[SearchHit.of(x, full=full) for x in r.results],
                   timings_ms=dict(r.timings_ms) if full else None)


class Changed(Out):
    namespace: str
    changed: list[str] = Field(description="Ids whose status changed (ids already in that state are left out).")


class Related(Out):
    namespace: str
    written: int = Field(description="Edges created or updated.")


class Node(Out):
    key: str
    id: str
    label: str = Field(description="Memory, Entity, Task or Turn.")
    kind: str | None
    content: str | None
    status: str | None
    integrity: str = Field(default="ok", description="ok, or why its signature failed (flag mode only).")


class Edge(Out):
    source: str
    type: str
    target: str
    weight: float


class Neighborhood(Out):
    center: str = Field(description="The key of the memory's node (edges name nodes by key).")
    nodes: list[Node]
    edges: list[Edge]
    truncated: bool = Field(default=False, description="The walk stopped at its limit of paths: more edges lie "
                                                       "around than are shown (ask for fewer hops or types).")

    @classmethod
    def of(cls, n: browse.Neighborhood) -> Neighborhood:
        return cls(center=n.center, nodes=[Node(**x.model_dump()) for x in n.nodes],
                   edges=[Edge(source=e.source, type=e.type, target=e.target, weight=e.weight) for e in n.edges],
                   truncated=n.truncated)


class Task(Out):
    id: str
    namespace: str
    agent: str
    title: str | None
    status: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    writer: str | None
    trust: float | None

    @classmethod
    def of(cls, t: models.Task) -> Task:
        return cls(id=t.id, namespace=t.namespace, agent=t.agent, title=t.title, status=t.status.value,
                   started_at=t.started_at, ended_at=t.ended_at, outcome=t.outcome, writer=t.writer, trust=t.trust)


class Turn(Out):
    id: str
    seq: int
    role: str
    content: str
    at: datetime


class Logged(Out):
    namespace: str
    task_id: str
    turns: list[Turn]

    @classmethod
    def of(cls, namespace: str, task_id: str, turns: list[models.Turn]) -> Logged:
        return cls(namespace=namespace, task_id=task_id,
                   turns=[Turn(id=t.id, seq=t.seq, role=t.role.value, content=t.content, at=t.at) for t in turns])


class Reflected(Out):
    id: str
    kind: str
    content: str
    action: str


class Reflection(Out):
    task_id: str
    namespace: str
    facts: list[Reflected]
    lessons: list[Reflected]
    edges: list[PathStep]
    summary: Reflected | None = Field(default=None, description="The task's summary, written in the same call.")
    superseded: list[str] = Field(description="Ids of memories marked superseded (never deleted).")
    llm_calls: int
    latency_ms: float
    replayed: bool = Field(description="True: the task was reflected before; this is that report.")

    @classmethod
    def of(cls, r: ReflectionReport) -> Reflection:
        def written(items: list[WrittenMemory]) -> list[Reflected]:
            return [Reflected(id=m.id, kind=m.kind.value, content=m.content, action=m.action.value) for m in items]

        return cls(task_id=r.task_id, namespace=r.namespace, facts=written(r.facts), lessons=written(r.lessons),
                   edges=[PathStep(source_id=e.source_id, type=e.type, target_id=e.target_id) for e in r.edges],
                   summary=written([r.summary])[0] if r.summary is not None else None,
                   superseded=list(r.superseded), llm_calls=r.llm.calls, latency_ms=r.latency_ms,
                   replayed=r.replayed)


class TaskEnded(Out):
    task: Task
    reflection_status: str | None = Field(description="pending | running | done | failed (the queue's view).")
    reflection_error: str | None = Field(description="Why the last reflection failed, if it did.")
    reflection: Reflection | None = Field(description="What reflection wrote, once done.")
    summary: Reflected | None = Field(default=None, description=(
        "The task's active summary (reflection's, or the extractive one when the server writes those); null: none."))


class Stats(Out):
    namespace: str
    memories: dict[str, int] = Field(description="Counts keyed kind/status.")
    edges: dict[str, int]
    nodes: dict[str, int]

    @classmethod
    def of(cls, s: browse.Stats) -> Stats:
        return cls(namespace=s.namespace, memories=dict(s.memories), edges=dict(s.edges), nodes=dict(s.nodes))


class ConsolidatedCluster(Out):
    kind: str
    members: list[str] = Field(description="Ids of the memories that say the same thing, best-supported first.")
    survivor_id: str = Field(description="The memory that remains (the kept member, or a new merged memory).")
    merged_by: str = Field(description="kept | llm")
    text: str = Field(description="The survivor's content.")
    reason: str
    archived: list[str] = Field(description="Members archived into the survivor (or that would be, in a dry run).")
    outcome: str = Field(description="planned (dry run) | merged | skipped (changed since planned) | failed")
    error: str | None


class Consolidation(Out):
    namespace: str
    dry_run: bool
    candidates: int
    clusters: list[ConsolidatedCluster]
    merged: int
    archived: int
    skipped: int
    failed: int
    llm_calls: int
    llm_fallbacks: int = Field(description="Clusters whose LLM answer was unusable (their best member was kept).")
    seconds: float

    @classmethod
    def of(cls, r: ConsolidationReport) -> Consolidation:
        return cls(namespace=r.namespace, dry_run=r.dry_run, candidates=r.candidates, clusters=[
            ConsolidatedCluster(kind=c.kind.value, members=list(c.member_ids), survivor_id=c.survivor_id,
                                merged_by=c.merged_by.value, text=c.text, reason=c.reason, archived=list(c.archived),
                                outcome=c.outcome.value, error=c.error) for c in r.plans],
            merged=r.merged, archived=r.archived, skipped=r.skipped, failed=r.failed, llm_calls=r.llm_calls,
            llm_fallbacks=r.llm_fallbacks, seconds=r.seconds)
