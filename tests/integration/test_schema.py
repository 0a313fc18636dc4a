"""Schema migration against the real Neo4j."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.errors import SchemaMismatchError
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.service import MemoryService
from graphmem.service.reembed import reembed
from graphmem.store import Step, Store, migrate
from graphmem.store.schema import schema_version


async def _index_names(store: Store) -> dict[str, str]:
    rows = await store.run_schema("admin/vector_index_info", name="memory_embedding")
    assert rows, "vector index missing"
    return {r["name"]: r["state"] for r in rows}


async def test_schema_applies_twice_and_records_version(store: Store, migrated: Settings) -> None:
    first = await migrate(store, embedding_dim=384)
    second = await migrate(store, embedding_dim=384)
    assert first == second
    assert first.version == schema_version(store) >= 13
    recorded = await store.read("admin/schema_version_get")
    assert recorded[0]["version"] == first.version
    assert recorded[0]["embedding_dim"] == 384
    info = await store.read("admin/vector_index_info", name="memory_embedding")
    assert info[0]["dimensions"] == 384
    assert info[0]["similarity"].lower() == "cosine"
    assert info[0]["state"] == "ONLINE"


async def test_dimension_mismatch_is_refused(store: Store) -> None:
    with pytest.raises(SchemaMismatchError, match="384 dimensions but the configured embedder gives 768"):
        await migrate(store, embedding_dim=768)


async def test_model_change_is_refused(store: Store, migrated: Settings) -> None:
    other = Store(store.driver, migrated.model_copy(update={"embedding_model": "some-other-model"}))
    with pytest.raises(SchemaMismatchError, match="re-embed"):
        await migrate(other, embedding_dim=384)


async def test_constraints_exist(store: Store) -> None:
    rows = await store.run_schema("admin/constraints")
    names = {r["name"] for r in rows}
    assert {"memory_key", "task_key", "turn_key", "entity_key", "request_key", "dedupe_lock"} <= names
    assert not {"memory_id", "task_id", "turn_id"} & names  # ids are unique per namespace, not globally


async def test_reembed_rebuilds_vectors_and_accepts_the_new_model(service: MemoryService, store: Store,
                                                                  namespace: str) -> None:
    (item,) = (await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC,
                                                         content="Gus repairs old radios")])).items
    stale = [1.0] + [0.0] * 383  # a vector from "another model"
    await store.write([Step("test/set_embedding", {"id": item.id, "embedding": stale})])
    await store.write([Step("test/set_recorded_model", {"model": "old-model"})])
    with pytest.raises(SchemaMismatchError, match="old-model"):
        await migrate(store, embedding_dim=384)
    report = await reembed(store, service.embedder, page=2)
    assert report.memories >= 1
    assert report.index_rebuilt is False  # same dimension: the index is kept
    assert report.schema.embedding_model == store.settings.embedding_model
    hits = await store.vector_search(service.embedder.embed_query("who fixes radios?"), [namespace], k=1)
    assert hits[0].memory.id == item.id
    assert hits[0].score > 0.75  # the stale axis vector would score about 0.5
    await migrate(store, embedding_dim=384)  # the mismatch is gone


async def test_another_embedder_of_the_same_model_is_refused_once_a_memory_is_chinese(
        service: MemoryService, store: Store, migrated: Settings, namespace: str) -> None:
    """bilingual and sentence-transformers share MiniLM and differ on Chinese text only (a store with no Chinese
    memory is accepted; the integration database is shared by other tests, which write Chinese, so that side is
    not checked here)."""
    other = "sentence-transformers" if migrated.embedder != "sentence-transformers" else "bilingual"
    try:
        await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC,
                                                  content="数据库每周五凌晨备份")])
        await store.write([Step("test/set_recorded_embedder", {"embedder": other})])
        with pytest.raises(SchemaMismatchError, match=f"embedded by the '{other}' embedder.*is Chinese"):
            await migrate(store, embedding_dim=384)
        await store.write([Step("test/set_recorded_embedder", {"embedder": None})])  # recorded before this check
        await migrate(store, embedding_dim=384)
        recorded = await store.read("admin/schema_version_get")
        assert recorded[0]["embedder"] == migrated.embedder
    finally:
        await store.wipe_namespace(namespace)
        await store.write([Step("test/set_recorded_embedder", {"embedder": migrated.embedder})])
