"""The Neo4j JVM killed (SIGKILL) under a load of writes and searches, then started again, under one running API.

Asserts what a caller sees: once the outage is detected every request fails within a second with UNAVAILABLE
(never INTERNAL, never a hang until the driver's timeouts); /readyz says 503 within about a second, then 200 after
the restart; the API recovers by itself; and every write it acknowledged is there afterwards.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder, make_embedder
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.store import Store
from graphmem.store.admin import wait_ready
from tests.integration.api_support import WRITE, Api, codes, open_api, post

SEARCH = """query Fault($q: String!, $ns: [String!]) { search(query: $q, namespaces: $ns) {
    results { memory { id } } } }"""
FAST_S = 1.0
"""The longest a request may take to fail once the outage is known."""
WORKERS = 4


@dataclass(frozen=True)
class Outcome:
    kind: str
    started: float
    took: float
    codes: tuple[str, ...]
    written: str | None
    """The id of an acknowledged write."""

    @property
    def ok(self) -> bool:
        return not self.codes


@pytest.fixture(scope="module")
def fault_embedder() -> Embedder:
    return make_embedder(Settings())


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[tuple[LocalNeo4j, Settings]]:
    """A Neo4j of this test alone (it gets killed): own home, free ports, small memory, no auth."""
    bolt = free_port()
    settings = Settings().model_copy(update={
        "neo4j_home": tmp_path / "home", "neo4j_bolt_port": bolt, "neo4j_http_port": free_port(),
        "neo4j_uri": f"bolt://127.0.0.1:{bolt}", "neo4j_heap": "384m", "neo4j_pagecache": "64m",
        "neo4j_start_timeout_s": 240.0, "neo4j_auth": False,
    })
    server = LocalNeo4j(settings)
    server.fetch()
    server.start(ready=lambda: wait_ready(settings))
    try:
        yield server, settings
    finally:
        server.stop(5.0)


async def one_request(api: Api, kind: str, ns: str) -> Outcome:
    started = time.monotonic()
    if kind == "write":
        variables = {"memories": [{"namespace": ns, "kind": "SEMANTIC",
                                   "content": f"Fault drill note {uuid.uuid4().hex[:12]} about the nightly backup"}],
                     "requestId": uuid.uuid4().hex, "dedupe": False}
        response = await asyncio.wait_for(post(api.client, api.tokens.a, WRITE, variables), timeout=60)
    else:
        response = await asyncio.wait_for(
            post(api.client, api.tokens.a, SEARCH, {"q": "when does the backup run", "ns": [ns]}), timeout=60)
    took = time.monotonic() - started
    assert response.status_code == 200, response.text
    body = response.json()
    written = None
    if kind == "write" and not body.get("errors"):
        written = body["data"]["writeMemories"]["items"][0]["id"]
    return Outcome(kind, started, took, tuple(codes(body)), written)


async def load(api: Api, ns: str, n: int, stop: asyncio.Event, outcomes: list[Outcome]) -> None:
    """One client: a write after every two searches, until ``stop``."""
    i = n
    while not stop.is_set():
        i += 1
        outcome = await one_request(api, "write" if i % 3 == 0 else "search", ns)
        outcomes.append(outcome)
        await asyncio.sleep(0.02 if outcome.ok else 0.1)


class LoopLag:
    """How late the event loop woke a 20 ms sleeper: a stall of the whole process (the box has 2 shared cores and
    a JVM starting) is not the app waiting, and excuses that much of a request's time."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []

    async def watch(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            before = time.monotonic()
            await asyncio.sleep(0.02)
            now = time.monotonic()
            self.samples.append((now, now - before - 0.02))

    def stalled(self, start: float, end: float) -> float:
        return sum(lag for at, lag in self.samples if start <= at <= end + 0.05 and lag > 0.05)


async def until(condition: Callable[[], bool], within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.1)


async def readyz(api: Api) -> tuple[int, float]:
    started = time.monotonic()
    response = await asyncio.wait_for(api.client.get("/readyz"), timeout=30)
    return response.status_code, time.monotonic() - started


async def test_neo4j_killed_under_load_then_restarted(own_server: tuple[LocalNeo4j, Settings],
                                                     fault_embedder: Embedder) -> None:
    server, settings = own_server
    async with open_api(settings, fault_embedder, seed=False, wipe_after=False) as api:
        ns = api.ns_a
        outcomes: list[Outcome] = []
        stop = asyncio.Event()
        lag = LoopLag()
        clients = [asyncio.create_task(load(api, ns, n, stop, outcomes)) for n in range(WORKERS)]
        clients.append(asyncio.create_task(lag.watch(stop)))
        try:
            await until(lambda: len(outcomes) >= 12, 90)  # healthy (the first requests warm up)
            before_kill = len(outcomes)
            pid = server.read_pid()
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            killed = time.monotonic()
            await asyncio.sleep(3.0)  # down, under load
            down_status, down_took = await readyz(api)
            await asyncio.to_thread(server.start, ready=lambda: wait_ready(settings))  # the load goes on meanwhile
            restarted = time.monotonic()
            deadline = restarted + 15
            while (status := (await readyz(api))[0]) != 200 and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            up_status = status
            recovered = time.monotonic()
            await until(lambda: {o.kind for o in outcomes if o.ok and o.started >= recovered} == {"write", "search"},
                        30)  # healthy again, same API process
        finally:
            stop.set()
            await asyncio.gather(*clients)

    assert before_kill > 0
    assert all(o.ok for o in outcomes[:before_kill]), "the load ran clean before the kill"
    failures = [o for o in outcomes if not o.ok]
    assert failures, "the load met the outage"
    assert {c for o in failures for c in o.codes} == {"UNAVAILABLE"}, [o.codes for o in failures if
                                                                       set(o.codes) != {"UNAVAILABLE"}]
    detected = min(o.started + o.took for o in failures)
    assert detected - killed < 2 * FAST_S, f"outage detected {detected - killed:.2f}s after the kill"
    late = [o for o in failures if o.started >= detected]
    slow = [(o.kind, round(o.started - killed, 2), round(o.took, 2), round(stall, 2)) for o in late
            if o.took - (stall := lag.stalled(o.started, o.started + o.took)) >= FAST_S]
    assert not slow, (f"{len(slow)} of {len(late)} failed requests took over {FAST_S}s (kind, started after the "
                      f"kill, took, process stalled): {slow[:5]}; restarted {restarted - killed:.1f}s after the kill")
    assert len(late) > 10, "requests kept failing fast while Neo4j was down and restarting"
    assert down_status == 503
    assert down_took < 1.5, f"/readyz took {down_took:.2f}s to say 503"
    assert up_status == 200, "the API did not recover by itself"
    after = [o for o in outcomes if o.started >= recovered]
    assert {o.kind for o in after if o.ok} == {"write", "search"}, "writes and searches succeed after recovery"

    acknowledged = [o.written for o in outcomes if o.written is not None]
    assert acknowledged
    async with Store.connect(settings) as store:
        missing = [i for i in acknowledged if await store.get_memory(i, [ns]) is None]
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged writes lost: {missing[:5]}"
