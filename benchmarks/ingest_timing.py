"""Timing the ingest benchmark's two paths: the embedder and the store wrapped to time each call and Cypher
statement, embed-only over the batches, and one ingest round through ``MemoryService``."""

from __future__ import annotations

import cProfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.models import MemoryDraft, WriteAction
from graphmem.service.memory_service import MemoryService
from graphmem.store import Step, Store
from graphmem.store.store import Row, Tx

if TYPE_CHECKING:
    import neo4j

T = TypeVar("T")

# --- timing wrappers --------------------------------------------------------------------------------------


@dataclass
class Clock:
    """Seconds and calls per label."""

    seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    calls: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, label: str, seconds: float) -> None:
        self.seconds[label] += seconds
        self.calls[label] += 1

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()

    def total(self) -> float:
        return sum(self.seconds.values())


class TimedEmbedder:
    """An ``Embedder`` that adds the time of every call to a clock (calls come one at a time)."""

    def __init__(self, inner: Embedder, clock: Clock) -> None:
        self.inner = inner
        self.clock = clock

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        started = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.clock.add("embed_documents", time.perf_counter() - started)

    def embed_query(self, text: str) -> list[float]:
        started = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.clock.add("embed_query", time.perf_counter() - started)


class TimedStore(Store):
    """A ``Store`` that times each read and each write transaction, by Cypher statement name."""

    def __init__(self, driver: neo4j.AsyncDriver, settings: Settings, clock: Clock) -> None:
        super().__init__(driver, settings)
        self.clock = clock

    async def read(self, name: str, /, **params: Any) -> list[Row]:
        started = time.perf_counter()
        try:
            return await super().read(name, **params)
        finally:
            self.clock.add(name, time.perf_counter() - started)

    async def write(self, steps: Sequence[Step]) -> list[list[Row]]:
        started = time.perf_counter()
        try:
            return await super().write(steps)
        finally:
            self.clock.add("write:" + "+".join(s.name for s in steps), time.perf_counter() - started)

    async def write_once(self, claim: Step, steps: Sequence[Step]) -> tuple[list[list[Row]] | None, Row]:
        started = time.perf_counter()
        try:
            return await super().write_once(claim, steps)
        finally:
            label = "+".join([claim.name, *(s.name for s in steps)])
            self.clock.add("write:" + label, time.perf_counter() - started)

    async def transact(self, label: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        started = time.perf_counter()
        try:
            return await super().transact(label, work)
        finally:
            self.clock.add("transaction:" + label, time.perf_counter() - started)


# --- the two paths ----------------------------------------------------------------------------------------


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def embed_only(embedder: Embedder, batches: Sequence[Sequence[str]], keep: list[np.ndarray] | None) -> float:
    """Seconds spent in ``embed_documents`` over all batches; ``keep`` collects the vectors."""
    spent = 0.0
    for batch in batches:
        started = time.perf_counter()
        vectors = embedder.embed_documents(batch)
        spent += time.perf_counter() - started
        if keep is not None:
            keep.append(np.asarray(vectors, dtype=np.float32))
    return spent


async def ingest(
    service: MemoryService, store: Store, batches: Sequence[Sequence[MemoryDraft]], namespace: str,
    clock: Clock, profile: cProfile.Profile | None = None, api: str = "write_many",
) -> dict[str, Any]:
    """One ingest round into a wiped namespace: seconds, actions, and the time per stage."""
    await store.wipe_namespace(namespace)
    clock.reset()
    actions: dict[str, int] = defaultdict(int)
    similarities: list[float] = []
    if profile is not None:
        profile.enable()
    started = time.perf_counter()
    # The bulk path (as `graphmem import` uses it): batch i+1 is embedded while batch i is written, so stage
    # times overlap and may add up to more than the wall time.
    if api == "write_many":
        results = await service.write_many(batches)
    else:
        results = [await service.write_memories(batch) for batch in batches]
    for result in results:
        for item in result.items:
            actions[item.action.value] += 1
            if item.action is WriteAction.STRENGTHENED and item.similarity is not None:
                similarities.append(item.similarity)
    seconds = time.perf_counter() - started
    if profile is not None:
        profile.disable()
    n = sum(len(b) for b in batches)
    stages = {name: round(s, 3) for name, s in sorted(clock.seconds.items(), key=lambda kv: -kv[1])}
    stages["not_in_stages"] = round(seconds - clock.total(), 3)
    return {
        "seconds": round(seconds, 3), "memories_per_s": round(n / seconds, 1),
        "created": actions[WriteAction.CREATED.value], "strengthened": actions[WriteAction.STRENGTHENED.value],
        "exists": actions[WriteAction.EXISTS.value],
        "strengthened_similarity_min": min(similarities) if similarities else None,
        "stages_s": stages, "stages_share": {k: round(v / seconds, 3) for k, v in stages.items()},
        "embed_texts_per_s_inside": round(n / clock.seconds["embed_documents"], 1)
        if clock.seconds.get("embed_documents") else None,
        "calls": dict(clock.calls),
    }


def near_duplicates(vectors: np.ndarray, threshold: float, block: int = 1000) -> dict[str, Any]:
    """What dedupe will see: each text's best cosine against the texts before it."""
    n = len(vectors)
    best = np.full(n, -1.0, dtype=np.float32)
    for start in range(0, n, block):
        end = min(start + block, n)
        sims = vectors[start:end] @ vectors[:end].T
        rows = np.arange(start, end)[:, None]
        sims[np.arange(end)[None, :] >= rows] = -1.0
        best[start:end] = sims.max(axis=1)
    return {
        "at_or_above_threshold": int((best >= threshold).sum()),
        "best_cosine_p50": round(float(np.percentile(best[1:], 50)), 4) if n > 1 else None,
        "best_cosine_p99": round(float(np.percentile(best[1:], 99)), 4) if n > 1 else None,
        "best_cosine_max": round(float(best.max()), 4),
    }
