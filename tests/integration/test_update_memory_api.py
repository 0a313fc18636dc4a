"""updateMemory through GraphQL (the ASGI app on the real Neo4j): validUntil can be cleared explicitly, a null
or left-out argument keeps the value, and clearing and setting at once is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import WRITE, Api, codes, open_api

UPDATE = """mutation($ns: String!, $id: ID!, $until: DateTime, $clear: Boolean! = false, $confidence: Float) {
  updateMemory(namespace: $ns, id: $id, validUntil: $until, clearValidUntil: $clear, confidence: $confidence) {
    id validUntil confidence } }"""
UNTIL = "2031-05-01T00:00:00+00:00"


@pytest.fixture
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    async with open_api(migrated, embedder, seed=False) as env:
        yield env


async def _memory(api: Api) -> str:
    written = await api.data(api.tokens.a, WRITE, {"memories": [{
        "namespace": api.ns_a, "kind": "SEMANTIC", "content": "The office is open until the end of May.",
        "validUntil": UNTIL}]})
    memory_id: str = written["writeMemories"]["items"][0]["id"]
    return memory_id


async def test_clear_valid_until_removes_it_and_null_keeps_it(api: Api) -> None:
    memory_id = await _memory(api)
    kept = (await api.data(api.tokens.a, UPDATE, {"ns": api.ns_a, "id": memory_id, "until": None,
                                                  "confidence": 0.7}))["updateMemory"]
    assert kept["validUntil"] is not None
    assert kept["validUntil"].startswith("2031-05-01")
    assert kept["confidence"] == pytest.approx(0.7)
    cleared = (await api.data(api.tokens.a, UPDATE, {"ns": api.ns_a, "id": memory_id, "clear": True}))
    assert cleared["updateMemory"]["validUntil"] is None
    again = (await api.data(api.tokens.admin, "query($ns: String!, $id: ID!) { memory(namespace: $ns, id: $id) "
                                              "{ validUntil confidence } }", {"ns": api.ns_a, "id": memory_id}))
    assert again["memory"] == {"validUntil": None, "confidence": pytest.approx(0.7)}


async def test_clearing_and_setting_valid_until_at_once_is_refused(api: Api) -> None:
    memory_id = await _memory(api)
    body = await api.call(api.tokens.a, UPDATE, {"ns": api.ns_a, "id": memory_id, "until": UNTIL, "clear": True})
    assert codes(body) == ["INVALID_INPUT"], body
