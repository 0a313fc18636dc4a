"""The query vectors a search keeps (retrieval/query_vectors): embedded off the event loop, the last few kept."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import cast

from graphmem.embed import Embedder
from graphmem.retrieval.query_vectors import QueryVectors


class Counting:
    """Records the thread of every query it embeds."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    @property
    def model_name(self) -> str:
        return "counting"

    @property
    def dimension(self) -> int:
        return 2

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.threads.append(threading.current_thread().name)
        return [float(len(text)), 1.0]


async def test_the_last_query_vectors_are_kept_and_the_oldest_goes() -> None:
    embedder = Counting()
    vectors = QueryVectors(cast(Embedder, embedder), keep=2)
    for query in ("a", "b", "a", "c", "a", "b"):  # "b" is out after "c"; "a", used last, stays
        await vectors.get(query)
    assert len(embedder.threads) == 4, "a kept vector was embedded again, or an evicted one was not"
    assert list(await vectors.get("bb")) == [2.0, 1.0]
    assert threading.current_thread().name not in embedder.threads, "the embedding ran on the event loop"


async def test_none_kept_embeds_every_time() -> None:
    embedder = Counting()
    vectors = QueryVectors(cast(Embedder, embedder), keep=0)
    await vectors.get("a")
    await vectors.get("a")
    assert len(embedder.threads) == 2
