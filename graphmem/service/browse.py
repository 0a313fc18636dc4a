"""Read-only views for front ends: pages of memories, graph neighbourhoods, tasks, entities, stats."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem.errors import NotFoundError, ValidationError
from graphmem.models import Memory, MemoryKind, MemoryStatus, RelationType, Turn, utcnow
from graphmem.service.tasks import turn_from_map
from graphmem.store import Store
from graphmem.store.records import native

MAX_PAGE = 200
NEIGHBORHOOD_TYPES = {*(t.value for t in RelationType), "ABOUT", "FROM_TASK", "HAS_TURN", "MERGED_INTO"}


class GraphNode(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    id: str
    label: str
    kind: str | None = None
    content: str | None = None
    status: str | None = None
    integrity: str = "ok"
    """As ``Memory.integrity``: a memory node that fails verification is left out, or (flag mode) marked."""


class GraphEdge(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    target: str
    type: str
    weight: float = 1.0


class Neighborhood(BaseModel):
    model_config = ConfigDict(frozen=True)

    center: str
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    truncated: bool = False
    """The walk stopped at its limit of paths: more edges lie around (a busy entity or task), not all shown."""


class Page(BaseModel):
    model_config = ConfigDict(frozen=True)

    items: tuple[Memory, ...]
    next_cursor: str | None


class EntityCount(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    kind: str | None
    memories: int


class Stats(BaseModel):
    model_config = ConfigDict(frozen=True)

    namespace: str
    memories: dict[str, int]
    """Keyed ``kind/status``."""
    edges: dict[str, int]
    nodes: dict[str, int]


def encode_cursor(memory: Memory) -> str:
    return cursor_of(memory.created_at, memory.id)


def cursor_of(created_at: datetime, memory_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{memory_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        at, mid = base64.urlsafe_b64decode(cursor.encode()).decode().split("|", 1)
        return datetime.fromisoformat(at), mid
    except (ValueError, UnicodeDecodeError):
        raise ValidationError("malformed cursor", field="after") from None


class BrowseService:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def memories(self, namespace: str, *, kinds: Sequence[MemoryKind] | None = None,
                       statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,), first: int = 50,
                       after: str | None = None) -> Page:
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first must be 1-{MAX_PAGE}", field="first")
        cursor_at, cursor_id = decode_cursor(after) if after else (None, "")
        rows = await self.store.read("memory/page", namespace=namespace, kinds=[k.value for k in kinds] if kinds
                                     else None, statuses=[s.value for s in statuses], cursor_at=cursor_at,
                                     cursor_id=cursor_id, limit=first + 1, now=utcnow())
        more = len(rows) > first
        last = rows[first - 1]["memory"] if more else None  # the cursor, read raw: it may fail verification
        items = self.store.memories(r["memory"] for r in rows[:first])
        return Page(items=tuple(items), next_cursor=cursor_of(native(last["created_at"]), last["id"])
                    if last is not None else None)

    async def neighborhood(self, namespace: str, memory_id: str, *, hops: int = 1,
                           types: Sequence[str] | None = None, limit: int = 200) -> Neighborhood:
        if not 1 <= hops <= 3:
            raise ValidationError("hops must be 1-3", field="hops")
        if types is not None and (unknown := set(types) - NEIGHBORHOOD_TYPES):
            raise ValidationError(f"unknown relation types {sorted(unknown)}", field="types")
        rows = await self.store.read("graph/neighborhood", id=memory_id, namespace=namespace, hops=hops,
                                     types=list(types) if types is not None else None, limit=min(limit, 1000))
        if not rows:
            raise NotFoundError(f"memory {memory_id!r} not found in {namespace!r}")
        raw = rows[0]["nodes"]
        signed = [n["signed"] for n in raw if n["signed"] is not None]
        passed = {d["id"]: d.get("integrity", "ok") for d in self.store.integrity.checked(signed)}
        kept = [n for n in raw if n["signed"] is None or n["signed"]["id"] in passed]
        if not any(n["id"] == memory_id for n in kept):
            raise NotFoundError(f"memory {memory_id!r} not found in {namespace!r}")
        nodes = tuple(GraphNode.model_validate({**{k: v for k, v in n.items() if k != "signed"},
                                                "integrity": passed.get(n["id"], "ok") if n["signed"] else "ok"})
                      for n in kept)
        keys = {n.key for n in nodes}
        center = next(n.key for n in nodes if n.id == memory_id)
        return Neighborhood(center=center, nodes=nodes, edges=tuple(
            GraphEdge.model_validate(e) for e in rows[0]["edges"] if e["source"] in keys and e["target"] in keys),
            truncated=bool(rows[0]["truncated"]))

    async def relations_of(self, keys: Sequence[tuple[str, str]]) -> list[list[dict[str, Any]]]:
        """Edges of many (namespace, memory id) pairs in one query per namespace (for DataLoaders)."""
        out: dict[tuple[str, str], list[dict[str, Any]]] = {k: [] for k in keys}
        for ns, ids in _by_namespace(keys).items():
            for row in await self.store.read("relation/of_memories", ids=ids, namespace=ns):
                out[(ns, row["id"])].append(row)
        return [out[k] for k in keys]

    async def turns_of(self, keys: Sequence[tuple[str, str]]) -> list[list[Turn]]:
        out: dict[tuple[str, str], list[Turn]] = {k: [] for k in keys}
        for ns, ids in _by_namespace(keys).items():
            for row in await self.store.read("task/turns_of", ids=ids, namespace=ns):
                out[(ns, row["task_id"])].append(turn_from_map(row["turn"]))
        return [out[k] for k in keys]

    async def memories_of_tasks(self, keys: Sequence[tuple[str, str]]) -> list[list[Memory]]:
        out: dict[tuple[str, str], list[Memory]] = {k: [] for k in keys}
        for ns, ids in _by_namespace(keys).items():
            for row in await self.store.read("task/memories_of", ids=ids, namespace=ns):
                out[(ns, row["task_id"])].extend(self.store.memories([row["memory"]]))
        return [out[k] for k in keys]

    async def entities(self, namespace: str, first: int = 50) -> list[EntityCount]:
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first must be 1-{MAX_PAGE}", field="first")
        rows = await self.store.read("graph/entities", namespace=namespace, limit=first)
        return [EntityCount.model_validate(r) for r in rows]

    async def stats(self, namespace: str) -> Stats:
        rows = await self.store.read("graph/stats", namespace=namespace, now=utcnow())
        by: dict[str, dict[str, int]] = {"memory": {}, "edge": {}, "node": {}}
        for r in rows:
            by[r["what"]][r["key"]] = int(r["n"])
        return Stats(namespace=namespace, memories=by["memory"], edges=by["edge"], nodes=by["node"])


def _by_namespace(keys: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for ns, item in keys:
        grouped.setdefault(ns, []).append(item)
    return grouped
