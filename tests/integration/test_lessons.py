"""A lesson (what reflection learnt from a failure) about the situation a search describes comes first, and says
so in its score parts; one about another situation does not jump the queue."""

from __future__ import annotations

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.retrieval.service import RetrievalService
from graphmem.retrieval.types import SearchOptions
from graphmem.service import MemoryService
from graphmem.store import Store


async def test_the_lesson_for_the_situation_comes_first(store: Store, embedder: Embedder, migrated: Settings,
                                                        namespace: str) -> None:
    service = MemoryService(store, embedder, migrated)
    episodes = ["I deployed the billing service on Friday evening.", "The billing service deploy used the old config.",
                "Deploying the billing service took twenty minutes.", "We deployed the search service on Monday."]
    lesson = "Lesson: before deploying the billing service, run the database migration first or the deploy fails."
    other = "Lesson: water the office plants on Mondays."
    items = (await service.write_memories(
        [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=c) for c in episodes]
        + [MemoryDraft(namespace=namespace, kind=MemoryKind.LESSON, content=c) for c in (lesson, other)],
        dedupe=False)).items
    lesson_id, other_id = items[-2].id, items[-1].id
    retrieval = RetrievalService(store, embedder, migrated)
    found = await retrieval.search("How do I deploy the billing service?", SearchOptions(namespaces=(namespace,)))
    assert found.results[0].memory.id == lesson_id
    assert found.results[0].parts.lesson > 0
    assert all(r.parts.lesson == 0 for r in found.results if r.memory.id == other_id)
