"""The query's vector: embedded in a worker thread (the event loop goes on serving), and kept for the last few
queries (least recently used out)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from graphmem.embed import Embedder
from graphmem.models import Vector

QUERY_VECTORS = 1024
"""Query embeddings kept (least recently used out)."""


class QueryVectors:
    def __init__(self, embedder: Embedder, keep: int = QUERY_VECTORS) -> None:
        self.embedder = embedder
        self.keep = keep
        """The last ``keep`` query embeddings are kept: a query asked again after a write (which empties the result
        cache of its namespace) does not pay for the embedding again (0: none kept)."""
        self._vectors: OrderedDict[str, Vector] = OrderedDict()

    async def get(self, query: str) -> Vector:
        if (known := self._vectors.get(query)) is not None:
            self._vectors.move_to_end(query)
            return known
        vector = Vector(await asyncio.to_thread(self.embedder.embed_query, query))
        self._vectors[query] = vector
        if len(self._vectors) > self.keep:
            self._vectors.popitem(last=False)
        return vector


__all__ = ["QUERY_VECTORS", "QueryVectors"]
