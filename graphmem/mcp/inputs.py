"""The arguments of each MCP tool: pydantic models whose JSON schemas are the tools' input schemas.

Bounds live here (lengths, ranges, list sizes) so a model sees them in the schema and a bad call is refused
with INVALID_INPUT before the service runs. Unknown arguments are refused too (``extra="forbid"``): a typo in an
argument name is an error the model can read, not a silently ignored option.

Numbers, booleans and times take only the JSON type their schema names (``"5"`` or ``true`` is no integer,
``1`` no boolean, ``1700000000`` no time); times are ISO 8601 strings and enums their string values, as the
schema says. The strictness is per field (``StrictInt``, ``StrictBool``, ``StrictFloat``, :data:`Time`), so it
holds however the arguments are validated.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    WithJsonSchema,
)

from graphmem.models import MAX_CONTENT_CHARS, MemoryKind, RelationType, Role
from graphmem.retrieval.types import Channel, ExpansionMode, Fusion, RerankMode, SummaryMode
from graphmem.service.browse import NEIGHBORHOOD_TYPES

MAX_BATCH = 100
"""Memories, ids or relations one call may carry."""
MAX_TURNS = 50
MAX_QUERY_CHARS = 2000
MAX_K = 50

NamespaceArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
    description="The namespace. Optional when your token may write exactly one namespace (that one is used).")]
MemoryId = Annotated[str, Field(min_length=1, max_length=64, description="A memory id.")]
RequestId = Annotated[str | None, Field(
    default=None, min_length=1, max_length=128,
    description="Idempotency key: a retried call with the same key returns the first result and writes "
                "nothing twice. Use a fresh one per logical write.")]
Tag = Annotated[str, Field(min_length=1, max_length=64)]
Entity = Annotated[str, Field(min_length=1, max_length=128)]
Unit = Annotated[StrictFloat, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
EDGE_TYPES = tuple(sorted(NEIGHBORHOOD_TYPES))
"""The edge types a neighbourhood may follow: the relation types and the structural edges (ABOUT, ...)."""


def _iso_text(value: object) -> object:
    """A time must come as text (or a datetime, from Python): a number is not read as a Unix time."""
    if isinstance(value, str | datetime):
        return value
    raise ValueError("Input should be an ISO 8601 date-time string")


def _edge_type(value: str) -> str:
    if value not in NEIGHBORHOOD_TYPES:
        raise ValueError(f"Input should be one of {', '.join(EDGE_TYPES)}")
    return value


Time = Annotated[datetime, BeforeValidator(_iso_text)]
EdgeType = Annotated[str, AfterValidator(_edge_type), WithJsonSchema(
    {"type": "string", "enum": list(EDGE_TYPES), "title": "EdgeType"})]


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MemoryItem(Args):
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS,
                         description="What to remember, as one self-contained statement (it is read without the "
                                     "conversation around it).")
    kind: MemoryKind = Field(default=MemoryKind.SEMANTIC, description=(
        "semantic: a fact or rule; episodic: something that happened; lesson: a mistake to avoid; working: "
        "scratch memory that should expire (give expires_at)."))
    tags: list[Tag] = Field(default_factory=list, max_length=32)
    entities: list[Entity] = Field(default_factory=list, max_length=32, description=(
        "People, places and things it is about (also found in the content); stored under one key per name "
        "(\"Caroline's\" and \"caroline\" are one entity)."))
    confidence: Unit = 1.0
    importance: Unit = 0.5
    source: str | None = Field(default=None, max_length=256, description="Where it came from (a URL, a tool).")
    valid_from: Time | None = None
    valid_until: Time | None = None
    expires_at: Time | None = None
    derived_from: list[MemoryId] = Field(default_factory=list, max_length=MAX_BATCH,
                                         description="Ids of memories or turns this was distilled from.")
    task_id: str | None = Field(default=None, max_length=64, description="The task this memory came from.")
    id: str | None = Field(default=None, min_length=1, max_length=64,
                           description="Your own id for it (a repeat with the same id changes nothing).")


class WriteArgs(Args):
    namespace: NamespaceArg
    memories: list[MemoryItem] = Field(min_length=1, max_length=MAX_BATCH,
                                       description="One or more memories, written in one transaction.")
    request_id: RequestId
    dedupe: StrictBool = Field(default=True, description="A near-duplicate of a stored memory strengthens it instead "
                                                         "of writing a copy.")


class SearchArgs(Args):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What you want to know, in words.")
    namespaces: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        default=None, min_length=1, max_length=16,
        description="Namespaces to search; default: every one your token reads, plus the shared one.")
    k: StrictInt = Field(default=8, ge=1, le=MAX_K, description="How many results.")
    hops: StrictInt = Field(default=1, ge=0, le=3,
                            description="How far to follow edges from the direct hits (0: none).")
    expansion_mode: ExpansionMode = Field(
        default=ExpansionMode.SPREADING, description="How following the edges scores what it reached: spreading "
                                                     "activation, or ppr (personalised PageRank; slower).")
    summaries: SummaryMode = Field(
        default=SummaryMode.LEAD, description="Task summaries: lead (down to their tasks' nearest turns, not returned "
                                              "themselves), return (them too), or hide (no descent, not returned).")
    kinds: list[MemoryKind] | None = Field(default=None, max_length=4)
    rerank: RerankMode = Field(
        default=RerankMode.FORMULA, description="How the results are ordered: formula (default: similarity, recency, "
                                                "access frequency, confidence and trust), llm (an LLM reads the top "
                                                "candidates and orders them; the server needs an LLM, and without one "
                                                "or on a failure the formula orders them and fallback_reason says "
                                                "why), or none (the order of the seeds and their expansion).")
    fusion: Fusion = Fusion.RRF
    channels: list[Channel] | None = Field(default=None, min_length=1, max_length=4,
                                           description="Seed channels (default: vector and fulltext).")
    include_superseded: StrictBool = Field(default=False, description="Also return memories replaced by newer ones.")
    as_of: Time | None = Field(default=None, description="Show what was valid at this time.")
    created_after: Time | None = None
    created_before: Time | None = None
    consensus: StrictBool = Field(default=False, description="Demote results that disagree with the majority about "
                                                             "their subject, and put results that restate the query "
                                                             "word for word last (poisoning defences).")
    min_trust: StrictFloat = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False,
                             description="Keep apart memories whose writer's trust is below this: no "
                                         "result, no seed, and they lead nowhere.")
    detail: Literal["compact", "full"] = Field(
        default="compact", description="compact: id, kind, content, score, path; full: also every score part, "
                                       "the memory's fields and the stage timings.")


class GetArgs(Args):
    id: MemoryId
    namespace: str | None = Field(default=None, min_length=1, max_length=64,
                                  description="Where to look; default: every namespace you may read.")


class UpdateArgs(Args):
    namespace: NamespaceArg
    id: MemoryId
    content: str | None = Field(default=None, min_length=1, max_length=MAX_CONTENT_CHARS,
                                description="New content (re-embedded).")
    tags: list[Tag] | None = Field(default=None, max_length=32, description="Replaces the tags.")
    confidence: Unit | None = None
    importance: Unit | None = None
    valid_from: Time | None = None
    valid_until: Time | None = None
    clear_valid_until: StrictBool = Field(default=False, description="Remove the end of its validity period (valid "
                                                                     "for good again); not with valid_until.")


class IdsArgs(Args):
    namespace: NamespaceArg
    ids: list[MemoryId] = Field(min_length=1, max_length=MAX_BATCH)


class RelationItem(Args):
    source_id: MemoryId
    target_id: MemoryId
    type: RelationType = Field(description="source -[type]-> target, e.g. SUPPORTS, CONTRADICTS, CAUSES.")
    weight: Unit = 1.0
    confidence: Unit = 1.0


class RelateArgs(Args):
    namespace: NamespaceArg
    relations: list[RelationItem] = Field(min_length=1, max_length=MAX_BATCH)
    request_id: RequestId


class NeighborhoodArgs(Args):
    namespace: NamespaceArg
    id: MemoryId
    hops: StrictInt = Field(default=1, ge=1, le=3)
    types: list[EdgeType] | None = Field(default=None, max_length=16, description="Edge types to follow (default: "
                                                                                  "all).")


class TaskStartArgs(Args):
    namespace: NamespaceArg
    title: str | None = Field(default=None, max_length=512, description="What the task is about.")
    agent: str = Field(default="agent", min_length=1, max_length=128, description="Your name.")
    id: str | None = Field(default=None, min_length=1, max_length=64)
    request_id: RequestId


class TurnItem(Args):
    role: Role
    content: str = Field(max_length=4 * MAX_CONTENT_CHARS)


class TaskLogArgs(Args):
    namespace: NamespaceArg
    task_id: str = Field(min_length=1, max_length=64)
    turns: list[TurnItem] = Field(min_length=1, max_length=MAX_TURNS, description="Turns to append, in order.")
    request_id: RequestId


class TaskEndArgs(Args):
    namespace: NamespaceArg
    task_id: str = Field(min_length=1, max_length=64)
    outcome: str | None = Field(default=None, max_length=MAX_CONTENT_CHARS, description="How it went.")
    reflect: StrictBool = Field(default=False, description="Reflect on the task now (an LLM call: slow) instead of "
                                                           "leaving it to the reflection queue.")


class ReflectArgs(Args):
    namespace: NamespaceArg
    task_id: str = Field(min_length=1, max_length=64)
    force: StrictBool = Field(default=False, description="Reflect again even if it was reflected before.")


class StatsArgs(Args):
    namespace: NamespaceArg


class ConsolidateArgs(Args):
    namespace: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$",
                           description="The namespace to consolidate (admin tokens name it).")
    dry_run: StrictBool = Field(default=False, description="Only find the clusters and say what would be merged: "
                                                           "nothing is written and no LLM is asked.")
