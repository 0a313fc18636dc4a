"""The served app and open_service settle the heap once start-up is done (graphmem.heap), and only when
GRAPHMEM_GC_FREEZE is on; the app still serves afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.service.factory import open_service
from tests.integration.api_support import open_api

SEARCH = 'query($ns: String!) { search(query: "kettle", namespaces: [$ns]) { results { memory { id } } } }'


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the other tests run with the freeze off (tests/conftest.py)


async def test_the_app_freezes_what_start_up_loaded_and_still_serves(migrated: Settings, embedder: Embedder) -> None:
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False,
                        gc_freeze=True) as api:
        assert gc.get_freeze_count() > 10_000  # the model, the driver, the schema: far more than a handful
        data = await api.data(api.tokens.a, SEARCH, {"ns": api.ns_a})
        assert data["search"]["results"] == []


async def test_the_app_leaves_the_heap_alone_when_told(migrated: Settings, embedder: Embedder) -> None:
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False,
                        gc_freeze=False):
        assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("freeze", [True, False])
async def test_open_service_settles_when_asked(migrated: Settings, embedder: Embedder, freeze: bool) -> None:
    async with open_service(migrated.model_copy(update={"gc_freeze": freeze}), embedder=embedder):
        assert (gc.get_freeze_count() > 0) is freeze
