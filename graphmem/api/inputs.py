"""GraphQL input types: what the write mutations take."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graphmem.api import enums as _enums  # noqa: F401  (registers the enums first)
from graphmem.models import MemoryKind, RelationType, Role


@strawberry.input
class KeyValueInput:
    key: str
    value: str


@strawberry.input
class MemoryInput:
    namespace: str
    kind: MemoryKind
    content: str
    id: str | None = None
    confidence: float = 1.0
    importance: float = 0.5
    tags: list[str] = strawberry.field(default_factory=list)
    entities: list[str] = strawberry.field(default_factory=list, description=(
        "People, places and things it is about (also found in the content); each is stored under one key, "
        "lowercase, without a possessive: \"Caroline\" and \"caroline's\" are one entity."))
    source: str | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    expires_at: datetime | None = None
    derived_from: list[str] = strawberry.field(default_factory=list)
    task_id: str | None = None
    metadata: list[KeyValueInput] = strawberry.field(default_factory=list)

    def to_raw(self) -> dict[str, object]:
        return {"namespace": self.namespace, "kind": self.kind, "content": self.content, "id": self.id,
                "confidence": self.confidence, "importance": self.importance, "tags": tuple(self.tags),
                "entities": tuple(self.entities), "source": self.source, "valid_from": self.valid_from,
                "valid_until": self.valid_until, "expires_at": self.expires_at,
                "derived_from": tuple(self.derived_from), "task_id": self.task_id,
                "metadata": {kv.key: kv.value for kv in self.metadata}}


@strawberry.input
class RelationInput:
    source_id: str
    target_id: str
    type: RelationType
    weight: float = 1.0
    confidence: float = 1.0
    source: str | None = None


@strawberry.input
class TaskInput:
    namespace: str
    agent: str = "agent"
    title: str | None = None
    id: str | None = None


@strawberry.input
class TurnInput:
    role: Role
    content: str
