"""Re-embedding every memory with the configured embedder, and rebuilding the vector index to fit it.

Needed after a change of embedding model or dimension (the store refuses to start on a mismatch). Vectors
are computed outside any transaction, a page at a time; the index is dropped first only when the dimension
changes, and the schema record names the new model at the end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from graphmem.embed import Embedder
from graphmem.store import Step, Store
from graphmem.store.schema import SchemaInfo, migrate, recorded_schema


@dataclass(frozen=True)
class ReembedReport:
    memories: int
    dimension: int
    index_rebuilt: bool
    schema: SchemaInfo


async def reembed(store: Store, embedder: Embedder, *, page: int = 256,
                  progress: Callable[[int], object] | None = None) -> ReembedReport:
    rows = await store.read("admin/vector_index_info", name="memory_embedding")
    old_dim = int(rows[0]["dimensions"]) if rows and rows[0]["dimensions"] is not None else None
    rebuild = old_dim != embedder.dimension
    if rebuild:
        await store.run_schema("admin/drop_vector_index")
    after_id, after_namespace, done = "", "", 0
    while True:
        batch = await store.read("memory/embedding_page", after_id=after_id, after_namespace=after_namespace,
                                 limit=page)
        if not batch:
            break
        vectors = await asyncio.to_thread(embedder.embed_documents, [r["content"] for r in batch])
        await store.write([Step("memory/set_embeddings", {
            "rows": [{"namespace": r["namespace"], "id": r["id"], "embedding": v}
                     for r, v in zip(batch, vectors, strict=True)]})])
        done += len(batch)
        after_id, after_namespace = batch[-1]["id"], batch[-1]["namespace"]
        if progress is not None:
            progress(len(batch))
    info = await migrate(store, embedding_dim=embedder.dimension, reembedded=True)
    return ReembedReport(done, embedder.dimension, rebuild, info)


__all__ = ["ReembedReport", "recorded_schema", "reembed"]
