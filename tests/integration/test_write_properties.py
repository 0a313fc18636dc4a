"""Property-based checks of idempotency and dedupe against the real Neo4j and the real embedder."""

from __future__ import annotations

import asyncio
import uuid

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.models import MemoryDraft, MemoryKind, WriteAction
from graphmem.service import MemoryService
from graphmem.store import Store

FACTS = [
    "Gina opened a dance studio downtown", "Jon lost his job as a banker", "Melanie paints landscapes",
    "Caroline is researching adoption agencies", "The refund takes five business days",
    "The build fails when the cache is cold", "Tim collects rare fantasy novels", "Andrew adopted a puppy",
]


async def _scenario(settings_: Settings, embedder: Embedder, picks: list[int], kinds: list[MemoryKind]) -> None:
    ns = f"p-{uuid.uuid4().hex[:10]}"
    async with Store.connect(settings_) as store:
        service = MemoryService(store, embedder, settings_)
        try:
            drafts = [MemoryDraft(namespace=ns, kind=k, content=FACTS[i]) for i, k in zip(picks, kinds, strict=False)]
            first = await service.write_memories(drafts, request_id="rid")
            fingerprint = await store.read("test/namespace_fingerprint", namespace=ns)
            replay = await service.write_memories(drafts, request_id="rid")
            assert replay.replayed
            assert replay.items == first.items
            assert await store.read("test/namespace_fingerprint", namespace=ns) == fingerprint
            # dedupe: one memory per distinct (fact, kind), whatever the repeats
            distinct = {(FACTS[i], k) for i, k in zip(picks, kinds, strict=False)}
            memories = {r["what"]: r["n"] for r in fingerprint}.get("Memory", 0)
            assert memories == len(distinct)
            created = [r for r in first.items if r.action is WriteAction.CREATED]
            assert len(created) == len(distinct)
            # writing the same facts again without a request id strengthens, never copies
            again = await service.write_memories(drafts)
            assert all(r.action is WriteAction.STRENGTHENED for r in again.items)
        finally:
            await store.wipe_namespace(ns)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, len(FACTS) - 1), min_size=1, max_size=10),
       st.lists(st.sampled_from([MemoryKind.SEMANTIC, MemoryKind.LESSON]), min_size=10, max_size=10))
def test_idempotency_and_dedupe_hold(migrated: Settings, embedder: Embedder, picks: list[int],
                                     kinds: list[MemoryKind]) -> None:
    asyncio.run(_scenario(migrated, embedder, picks, kinds))
