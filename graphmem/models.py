"""Domain types: pure data, validated, no I/O. The store and the service speak in these."""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Protocol, overload

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from graphmem.graph.answer_kinds import held_kinds

NAMESPACE_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
MAX_CONTENT_CHARS = 8000
MAX_TAGS = 32


class MemoryKind(StrEnum):
    WORKING = "working"  # short-lived scratch; has expires_at
    EPISODIC = "episodic"  # what happened: a turn or a task summary
    SEMANTIC = "semantic"  # a distilled fact or rule
    LESSON = "lesson"  # an error to avoid or an improvement, from reflection


class MemoryStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    DELETED = "deleted"
    QUARANTINED = "quarantined"
    """Screened at write as aimed at the agent (graphmem.security.screening): kept with its reason, never searched
    by default, released by an admin (releaseMemories)."""


class RelationType(StrEnum):
    """The closed vocabulary of knowledge edges between memories (real Neo4j relationship types)."""

    RELATES_TO = "RELATES_TO"  # generic association
    CAUSES = "CAUSES"  # source brings about target
    PART_OF = "PART_OF"  # source is a component/step of target
    IS_A = "IS_A"  # source is an instance/subtype of target
    SUPPORTS = "SUPPORTS"  # source is evidence for target
    CONTRADICTS = "CONTRADICTS"  # source and target cannot both hold
    SUPERSEDES = "SUPERSEDES"  # source replaces the (now superseded) target
    FOLLOWS = "FOLLOWS"  # source happened after target
    SIMILAR_TO = "SIMILAR_TO"  # computed: near in embedding space
    DERIVED_FROM = "DERIVED_FROM"  # provenance: source was distilled from target (memory)


class Vector(list[float]):
    """An embedding as a query parameter. The neo4j driver formats every parameter with ``repr`` for its debug
    log even when debug logging is off; a short repr saves that work for hundreds of 384-float vectors."""

    def __repr__(self) -> str:
        return f"<vector[{len(self)}]>"


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
@overload
def as_utc(value: datetime | None) -> datetime | None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """A time in plain UTC, as times are stored: a naive one is read as UTC (as a write stores it; Neo4j would
    compare a naive time with no stored time at all), an aware one converted (a time read back from Neo4j carries a
    named zone, which Neo4j would store as a zone id the search cannot read). One that UTC cannot hold is invalid."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("time out of range once in UTC") from None


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


def check_namespace(value: str) -> str:
    if not NAMESPACE_RE.fullmatch(value):
        raise ValueError(
            f"namespace {value!r} must be 1-64 chars of lowercase letters, digits, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("content is blank")
    return value


def _finite(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("must be a finite number")
    return value


Namespace = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(check_namespace)]
Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS), AfterValidator(_not_blank)]
Unit = Annotated[float, Field(ge=0.0, le=1.0), AfterValidator(_finite)]
"""A finite number in [0, 1] (confidence, importance, weight)."""


def clean_tags(value: tuple[str, ...]) -> tuple[str, ...]:
    """Tags as stored: stripped, lower case, each once; at most MAX_TAGS of at most 64 chars."""
    if len(value) > MAX_TAGS:
        raise ValueError(f"at most {MAX_TAGS} tags")
    cleaned = tuple(dict.fromkeys(t.strip().lower() for t in value if t.strip()))
    if any(len(t) > 64 for t in cleaned):
        raise ValueError("a tag is longer than 64 chars")
    return cleaned


class Memory(BaseModel):
    """A memory node as the service sees it (the embedding is kept apart: it is large and rarely read)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=new_id, min_length=1, max_length=64)
    namespace: Namespace
    kind: MemoryKind
    content: Content
    confidence: Unit = 1.0
    importance: Unit = 0.5
    access_count: int = Field(default=0, ge=0)
    last_accessed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    expires_at: datetime | None = None
    status: MemoryStatus = MemoryStatus.ACTIVE
    tags: tuple[str, ...] = ()
    source: str | None = None
    sources: tuple[str, ...] = ()
    """Every source that wrote or reinforced this memory (provenance, appended on dedupe)."""
    writer: str | None = None
    """The principal (token name) that wrote it; None: written before provenance, or by the service itself."""
    trust: Unit | None = None
    """How far its writer is trusted (the token's ``trust``), signed with it; None counts as 1 (``trust_of``)."""
    reinforced_count: int = Field(default=0, ge=0)
    content_hash: str | None = None
    signature: str | None = None
    """HMAC-SHA256 of the signed fields (graphmem.security.signing), set by the store when a write commits."""
    signature_key: str | None = None
    """The id of the key that made ``signature``."""
    metadata: dict[str, str] = Field(default_factory=dict)
    integrity: str = "ok"
    """"ok", or why verification failed (unsigned, unknown_key, mismatch): only seen with
    ``integrity_failures = "flag"``; otherwise a memory that fails is never returned."""

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return clean_tags(value)

    def to_row(self, embedding: list[float]) -> dict[str, Any]:
        """The parameter row the store's UNWIND statements take."""
        row = self.model_dump(mode="python")
        row["kind"] = self.kind.value
        row["status"] = self.status.value
        row["tags"] = list(self.tags)
        row["sources"] = list(self.sources)
        row["tags_text"] = " ".join(self.tags)
        row["metadata_json"] = _json(row.pop("metadata"))
        row["embedding"] = Vector(embedding)
        row["title"] = caption(self.content)
        row["answer_kinds"] = list(held_kinds(self.content))
        return row


def provenance(task: Task) -> dict[str, Any]:
    """The writer and trust that memories made from ``task`` (its reflection, its summary) carry; empty for a task
    without provenance (they count as graphmem's own, trusted)."""
    return {} if task.trust is None else {"writer": task.writer, "trust": task.trust}


class Trusted(Protocol):
    @property
    def trust(self) -> float | None: ...


def trust_of(item: Trusted) -> float:
    """The trust of a memory, draft or task: its own, or 1 for one without provenance."""
    return 1.0 if item.trust is None else item.trust


def trust_in(data: Mapping[str, Any]) -> float:
    """``trust_of`` for a memory as a statement maps it (its ``trust`` property, or none)."""
    value = data.get("trust")
    return 1.0 if value is None else float(value)


CAPTION_CHARS = 40


def caption(content: str) -> str:
    """A memory's ``title`` property: the start of its content on one line, which Neo4j Browser shows as the node's
    caption (it captions by ``name`` or ``title`` before anything else). Display only: not signed, never read."""
    text = " ".join(content.split())
    return text if len(text) <= CAPTION_CHARS else text[: CAPTION_CHARS - 1].rstrip() + "\u2026"


class ScoredMemory(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory: Memory
    score: float


def _json(value: dict[str, str]) -> str:
    import json

    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --- write inputs and the interaction log ----------------------------------------------------------------


class MemoryDraft(BaseModel):
    """What a caller asks to remember. The service turns it into a ``Memory`` (ids, hashes, times)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    namespace: Namespace
    kind: MemoryKind
    content: Content
    id: str | None = Field(default=None, min_length=1, max_length=64)
    confidence: Unit = 1.0
    importance: Unit = 0.5
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    source: str | None = Field(default=None, max_length=256)
    writer: str | None = Field(default=None, min_length=1, max_length=64)
    """Who writes it: set by ``ScopedService`` from the caller's token (a caller cannot choose it)."""
    trust: Unit | None = None
    """The writer's trust, set with ``writer``."""
    created_at: datetime | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    expires_at: datetime | None = None
    derived_from: tuple[str, ...] = ()
    """Ids of memories or turns this memory was distilled from (``DERIVED_FROM`` edges)."""
    task_id: str | None = None
    """The task this memory came from (``FROM_TASK`` edge)."""
    summary_of: str | None = Field(default=None, min_length=1, max_length=64)
    """The task this memory summarises (an episodic memory): the write links it ``FROM_TASK``, labels it
    ``:Summary`` and supersedes the task's earlier summary, so a task has one active summary (``graphmem.summary``).
    It never takes part in the task's time order (``FOLLOWS``) and is never merged into a near duplicate."""
    metadata: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _summary(self) -> MemoryDraft:
        if self.summary_of is not None:
            if self.kind is not MemoryKind.EPISODIC:
                raise ValueError("a task summary (summary_of) is an episodic memory")
            if self.task_id is not None and self.task_id != self.summary_of:
                raise ValueError("a task summary comes from the task it summarises (task_id = summary_of)")
        return self

    @model_validator(mode="after")
    def _validity(self) -> MemoryDraft:
        if self.valid_from is not None and self.valid_until is not None and self.valid_until <= self.valid_from:
            raise ValueError("valid_until must be after valid_from (such a memory would never be valid)")
        return self

    @field_validator("created_at", "valid_from", "valid_until", "expires_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return as_utc(value)

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return clean_tags(value)  # here too: a bad tag is named with its item, not when the memory is made

    @field_validator("entities")
    @classmethod
    def _entities(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(dict.fromkeys(" ".join(e.split()) for e in value if e.strip()))
        if len(cleaned) > MAX_TAGS or any(len(e) > 128 for e in cleaned):
            raise ValueError(f"at most {MAX_TAGS} entities of at most 128 chars")
        return cleaned


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class TaskStatus(StrEnum):
    OPEN = "open"
    ENDED = "ended"


class Task(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=new_id, min_length=1, max_length=64)
    namespace: Namespace
    agent: str = Field(default="agent", min_length=1, max_length=128)
    title: str | None = Field(default=None, max_length=512)
    status: TaskStatus = TaskStatus.OPEN
    started_at: datetime = Field(default_factory=utcnow)
    ended_at: datetime | None = None
    outcome: str | None = Field(default=None, max_length=MAX_CONTENT_CHARS)
    reflected_at: datetime | None = None
    writer: str | None = Field(default=None, min_length=1, max_length=64)
    """The token that started it (None: started without one, by graphmem itself or an import)."""
    trust: float | None = Field(default=None, ge=0.0, le=1.0)
    """The lowest trust of the tokens that started it or logged its turns: what reflection and its summary write
    from it carry (``provenance``), so a low-trust conversation cannot become trusted facts."""


class Turn(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(default_factory=new_id, min_length=1, max_length=64)
    task_id: str = Field(min_length=1, max_length=64)
    seq: int = Field(ge=0)
    role: Role
    content: str = Field(max_length=4 * MAX_CONTENT_CHARS)
    speaker: str | None = Field(default=None, max_length=128)
    tool_calls: str | None = None
    """Tool calls of this turn, as JSON text (kept verbatim for audit)."""
    at: datetime = Field(default_factory=utcnow)


class Relation(BaseModel):
    """A typed, weighted edge between two memories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str = Field(min_length=1, max_length=64)
    target_id: str = Field(min_length=1, max_length=64)
    type: RelationType
    weight: Unit = 1.0
    confidence: Unit = 1.0
    source: str | None = Field(default=None, max_length=256)


class WriteAction(StrEnum):
    CREATED = "created"
    STRENGTHENED = "strengthened"  # a near-duplicate existed: it was reinforced instead of copied
    EXISTS = "exists"  # the same id was written before


class WriteResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int
    id: str
    action: WriteAction
    similarity: float | None = None
    """For ``strengthened``: the similarity to the memory that was reinforced."""
    quarantined: str | None = None
    """Why the memory was stored ``quarantined`` (the screen's reason), if it was."""


class BatchResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    items: tuple[WriteResult, ...]
    replayed: bool = False
    """True when the request id was seen before and this is the stored first result."""
