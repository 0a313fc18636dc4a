"""The full-text channel on the real index: the analyzer drops stop words and stems English; Chinese queries
match as bigram phrases; a changed analyzer setting rebuilds the index at migrate."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from graphmem.config import Settings
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.retrieval import Channel, RetrievalService, SearchOptions
from graphmem.retrieval.access import AccessRecorder
from graphmem.service import MemoryService
from graphmem.store import Store, migrate
from graphmem.store.store import FULLTEXT_INDEX


@pytest.fixture
async def retrieval(bare_service: MemoryService) -> AsyncIterator[RetrievalService]:
    recorder = AccessRecorder(bare_service.store, flush_every_s=3600)
    yield RetrievalService(bare_service.store, bare_service.embedder, bare_service.settings,
                           versions=bare_service.versions, recorder=recorder)
    await recorder.stop()


async def fulltext(retrieval: RetrievalService, namespace: str, query: str) -> list[str]:
    options = SearchOptions(namespaces=(namespace,), k=5, channels=(Channel.FULLTEXT,), hops=0)
    return [r.memory.content for r in (await retrieval.search(query, options)).results]


async def write(service: MemoryService, namespace: str, *contents: str) -> None:
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=c) for c in contents]
    await service.write_memories(drafts, dedupe=False)


async def test_stop_words_do_not_match_and_words_are_stemmed(bare_service: MemoryService,
                                                             retrieval: RetrievalService, namespace: str) -> None:
    await write(bare_service, namespace, "Caroline: Cool! What did it look like?",
                "Melanie painted a lake at sunrise last week.")
    # "what did" alone matched the first memory with the old analyzer (standard-no-stop-words).
    assert await fulltext(retrieval, namespace, "What did the painting show?") == [
        "Melanie painted a lake at sunrise last week."]
    assert await fulltext(retrieval, namespace, "paintings") == ["Melanie painted a lake at sunrise last week."]


async def test_chinese_queries_match_bigrams_not_single_characters(bare_service: MemoryService,
                                                                   retrieval: RetrievalService,
                                                                   namespace: str) -> None:
    await write(bare_service, namespace, "客户要求退款, 订单号是 A-1029。", "政府发布了新的交通政策。",
                "我们下周去杭州出差。")
    # Single characters would match all three ("的", "政", "款" ...): the bigram phrases match only the first.
    assert await fulltext(retrieval, namespace, "退款的订单") == ["客户要求退款, 订单号是 A-1029。"]
    assert await fulltext(retrieval, namespace, "交通政策") == ["政府发布了新的交通政策。"]
    assert await fulltext(retrieval, namespace, "去杭州") == ["我们下周去杭州出差。"]


async def test_migrate_rebuilds_the_index_when_the_analyzer_changes(migrated: Settings) -> None:
    async def analyzer(store: Store) -> str:
        return str((await store.read("admin/fulltext_index_info", name=FULLTEXT_INDEX))[0]["analyzer"])

    other = migrated.model_copy(update={"fulltext_analyzer": "standard"})
    async with Store.connect(other) as store:
        dim = 384
        try:
            await migrate(store, embedding_dim=dim)
            assert await analyzer(store) == "standard"
        finally:
            async with Store.connect(migrated) as back:
                await migrate(back, embedding_dim=dim)
                assert await analyzer(back) == migrated.fulltext_analyzer == "english"
