"""The per-request GraphQL context: the caller's scoped service and DataLoaders that live one request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from strawberry.dataloader import DataLoader

from graphmem.api.observability import Metrics
from graphmem.models import Memory, Turn
from graphmem.service.browse import BrowseService
from graphmem.service.scoped import ScopedService

Key = tuple[str, str]  # (namespace, id)


@dataclass
class Loaders:
    relations: DataLoader[Key, list[dict[str, Any]]]
    turns: DataLoader[Key, list[Turn]]
    task_memories: DataLoader[Key, list[Memory]]

    @classmethod
    def create(cls, browse: BrowseService) -> Loaders:
        return cls(relations=DataLoader(load_fn=browse.relations_of), turns=DataLoader(load_fn=browse.turns_of),
                   task_memories=DataLoader(load_fn=browse.memories_of_tasks))


@dataclass
class Context:
    service: ScopedService
    loaders: Loaders
    request_id: str
    principal: str
    metrics: Metrics | None = None
    extra: dict[str, Any] = field(default_factory=dict)
