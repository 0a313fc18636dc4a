"""Schema migration against the real Neo4j."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.errors import SchemaMismatchError
from graphmem.store import Store, migrate
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
    assert {"memory_id", "task_id", "turn_id", "entity_key", "request_key"} <= names
