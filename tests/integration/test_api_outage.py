"""Neo4j stopped under a running API, then started again: quick UNAVAILABLE answers, /readyz 503, recovery."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from graphmem.api.errors import STORE_UNAVAILABLE
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.store.admin import wait_ready
from tests.integration.api_support import WRITE, Api, Json, codes, open_api

SEARCH = """query Outage($q: String!, $ns: [String!]) { search(query: $q, namespaces: $ns) {
    results { memory { id content } } } }"""
STATS = "query($ns: String!) { stats(namespace: $ns) { memories { key n } } }"
ANSWER_WITHIN_S = 20.0


def throwaway(tmp_path: Path, base: Settings) -> Settings:
    """A server of this test alone: own home, free ports, small memory."""
    bolt = free_port()
    return base.model_copy(update={
        "neo4j_home": tmp_path / "home", "neo4j_bolt_port": bolt, "neo4j_http_port": free_port(),
        "neo4j_uri": f"bolt://127.0.0.1:{bolt}", "neo4j_heap": "384m", "neo4j_pagecache": "64m",
        "neo4j_start_timeout_s": 240.0, "neo4j_auth": False,  # no password step: one JVM start less
    })


async def unavailable(api: Api, query: str, variables: Json) -> Json:
    """The body of a request made while Neo4j is down; it must come back with UNAVAILABLE, not hang or crash."""
    started = time.monotonic()
    response = await asyncio.wait_for(api.client.post(
        "/graphql", json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {api.tokens.a}"}), timeout=3 * ANSWER_WITHIN_S)
    took = time.monotonic() - started
    assert took < ANSWER_WITHIN_S, f"answered after {took:.1f}s"
    assert response.status_code == 200
    body: Json = response.json()
    assert body["data"] is None
    assert codes(body) == ["UNAVAILABLE"], body
    text = json.dumps(body)
    assert "Traceback" not in text
    assert body["errors"][0]["message"] == STORE_UNAVAILABLE
    assert f":{api.settings.neo4j_bolt_port}" not in text, "the driver's error text reached the client"
    assert "ServiceUnavailable" not in text
    return body


async def back_within(api: Api, seconds: float) -> None:
    """Wait (at most ``seconds``) until /readyz says 200."""
    deadline = time.monotonic() + seconds
    while (await api.client.get("/readyz")).status_code != 200 and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


async def test_neo4j_stopped_mid_test_then_restarted(tmp_path: Path, neo4j_settings: Settings,
                                                      embedder: Embedder) -> None:
    settings = throwaway(tmp_path, neo4j_settings)
    server = LocalNeo4j(settings)
    server.fetch()
    await asyncio.to_thread(server.start, ready=lambda: wait_ready(settings))
    try:
        async with open_api(settings, embedder, seed=False, wipe_after=False) as api:
            ns = api.ns_a
            written = await api.data(api.tokens.a, WRITE, {"memories": [
                {"namespace": ns, "kind": "SEMANTIC", "content": "The backup runs every night at two"}]})
            kept = written["writeMemories"]["items"][0]["id"]
            before = await api.data(api.tokens.a, STATS, {"ns": ns})
            assert before["stats"]["memories"] == [{"key": "semantic/active", "n": 1}]

            assert await asyncio.to_thread(server.stop) is True
            await asyncio.gather(
                unavailable(api, SEARCH, {"q": "is the backup nightly", "ns": [ns]}),
                unavailable(api, WRITE, {"memories": [
                    {"namespace": ns, "kind": "SEMANTIC", "content": "Written while the database is down"}]}),
                unavailable(api, STATS, {"ns": ns}),
            )
            ready = await asyncio.wait_for(api.client.get("/readyz"), timeout=15)
            assert ready.status_code == 503
            assert ready.json()["status"] == "unavailable"
            assert (await api.client.get("/healthz")).status_code == 200, "liveness does not depend on Neo4j"

            await asyncio.to_thread(server.start, ready=lambda: wait_ready(settings))
            await back_within(api, 2.0)  # the store's circuit breaker closes at its next probe (every 0.5 s)
            after = await api.data(api.tokens.a, SEARCH, {"q": "when does the backup run", "ns": [ns]})
            assert [r["memory"]["id"] for r in after["search"]["results"]] == [kept]
            assert (await api.client.get("/readyz")).status_code == 200
            again = await api.data(api.tokens.a, WRITE, {"memories": [
                {"namespace": ns, "kind": "SEMANTIC", "content": "Written after the restart"}]})
            assert again["writeMemories"]["items"][0]["action"] == "CREATED"
    finally:
        await asyncio.to_thread(server.stop, 5.0)  # a throwaway: no need to wait for a clean shutdown
