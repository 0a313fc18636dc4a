"""Opens everything a MemoryService needs: the store (schema applied) and the embedder."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from graphmem.config import Settings
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.heap import settle
from graphmem.service.memory_service import MemoryService
from graphmem.store import Store, migrate


@asynccontextmanager
async def open_service(settings: Settings, *, embedder: Embedder | None = None) -> AsyncIterator[MemoryService]:
    """Connect, migrate (idempotent; refuses a dimension or model mismatch), load the embedder and settle the heap."""
    async with Store.connect(settings) as store:
        await migrate(store, embedding_dim=embedding_dimension(settings))
        model = embedder if embedder is not None else await asyncio.to_thread(make_embedder, settings)
        settle(settings.gc_freeze)  # what start-up loaded leaves Python's collections (graphmem.heap)
        yield MemoryService(store, model, settings)
