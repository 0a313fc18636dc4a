"""Admission control: the limiter (a fake clock measures its waits), the middleware's OVERLOADED refusals, and an
exhausted connection pool reported as OVERLOADED, never UNAVAILABLE."""

from __future__ import annotations

import asyncio
import json
import os
from typing import cast

import httpx
import pytest
from neo4j import exceptions as nx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from graphmem.api.admission import Admission, Limiter, limited
from graphmem.api.app import RequestLog, create_app
from graphmem.api.errors import code_for
from graphmem.api.observability import Metrics
from graphmem.config import Settings
from graphmem.errors import OverloadedError, StoreUnavailableError
from graphmem.security import make_entry, new_token
from graphmem.store.errors import translate


class Alarm:
    """A fake clock for the limiter's waits: every wait ends when the test rings it, not when time passes."""

    def __init__(self) -> None:
        self.rung = asyncio.Event()
        self.waits: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        await self.rung.wait()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


# --- the limiter --------------------------------------------------------------------------------
async def test_the_excess_is_refused_at_once_without_a_queue() -> None:
    limiter = Limiter(2, max_queued=0, wait_s=0.05, sleep=Alarm().sleep)
    assert await limiter.acquire()
    assert await limiter.acquire()
    assert not await limiter.acquire()
    assert (limiter.in_flight, limiter.admitted, limiter.refused) == (2, 2, 1)
    limiter.release()
    assert await limiter.acquire()


async def test_a_freed_slot_goes_to_the_oldest_waiter() -> None:
    alarm = Alarm()
    limiter = Limiter(1, max_queued=2, wait_s=0.05, sleep=alarm.sleep)
    assert await limiter.acquire()
    first = asyncio.create_task(limiter.acquire())
    second = asyncio.create_task(limiter.acquire())
    await settle()
    assert limiter.queued == 2
    assert alarm.waits == [0.05, 0.05]
    limiter.release()
    await settle()
    assert first.done()
    assert first.result() is True
    assert not second.done(), "a slot for one, in arrival order"
    assert limiter.in_flight == 1, "handed over, not freed"
    alarm.rung.set()  # the second one's wait runs out
    assert await second is False
    assert (limiter.queued, limiter.refused) == (0, 1)


async def test_the_queue_is_bounded() -> None:
    alarm = Alarm()
    limiter = Limiter(1, max_queued=1, wait_s=0.05, sleep=alarm.sleep)
    assert await limiter.acquire()
    waiting = asyncio.create_task(limiter.acquire())
    await settle()
    assert not await limiter.acquire(), "the queue is full: refused without waiting"
    assert len(alarm.waits) == 1
    limiter.release()
    assert await waiting is True


async def test_a_cancelled_waiter_leaks_no_slot() -> None:
    limiter = Limiter(1, max_queued=1, wait_s=0.05, sleep=Alarm().sleep)
    assert await limiter.acquire()
    waiting = asyncio.create_task(limiter.acquire())
    await settle()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert limiter.queued == 0
    limiter.release()
    assert limiter.in_flight == 0
    assert await limiter.acquire()


def test_limited_paths() -> None:
    assert limited("/graphql")
    assert limited("/mcp")
    assert limited("/mcp/messages")
    assert not limited("/graphqlx")
    assert not limited("/readyz")


def test_the_default_limit_is_two_per_core() -> None:
    settings = Settings()
    assert settings.max_in_flight == 2 * len(os.sched_getaffinity(0))
    assert settings.max_queued == settings.max_in_flight
    assert Settings(api_max_in_flight=3, api_max_queued=7).max_queued == 7


# --- the middleware -----------------------------------------------------------------------------
def slow_app(gate: asyncio.Event) -> Starlette:
    async def work(request: Request) -> Response:
        await gate.wait()
        return JSONResponse({"data": {"ok": True}})

    return Starlette(routes=[Route("/graphql", work, methods=["GET", "POST"]), Route("/other", work, methods=["POST"])])


def wrapped(app: ASGIApp, limiter: Limiter) -> ASGIApp:
    return RequestLog(Admission(app, limiter, retry_after_s=1.0), Metrics(known_operations=set()))


async def test_the_middleware_refuses_the_excess_with_overloaded() -> None:
    gate = asyncio.Event()
    limiter = Limiter(1, max_queued=0, wait_s=0.0)
    transport = httpx.ASGITransport(app=wrapped(slow_app(gate), limiter))
    async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as client:
        held = asyncio.create_task(client.post("/graphql", json={"query": "{ a }"}))
        await settle()
        assert limiter.in_flight == 1
        refused = await client.post("/graphql", json={"query": "{ b }"}, headers={"X-Request-ID": "req-7"})
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "1"
        body = refused.json()
        assert list(body) == ["errors"], "no data: nothing was executed"
        assert body["errors"][0]["extensions"] == {"code": "OVERLOADED", "requestId": "req-7"}
        assert "at capacity" in body["errors"][0]["message"]
        other = asyncio.create_task(client.post("/other"))  # not a limited path
        page = asyncio.create_task(client.get("/graphql"))  # a GET holds no slot
        await settle()
        gate.set()
        assert (await held).status_code == 200
        assert (await other).status_code == 200
        assert (await page).status_code == 200
    assert (limiter.in_flight, limiter.admitted, limiter.refused) == (0, 1, 1)


def test_the_app_installs_admission_inside_the_request_log() -> None:
    _, token_hash = new_token()
    tokens = json.dumps({"tokens": [make_entry("tok", token_hash, write=["ns"]).to_dict()]})
    app = create_app(Settings(tokens=tokens, api_max_in_flight=5))
    names = [m.cls.__name__ for m in app.user_middleware]  # type: ignore[attr-defined]
    assert names == ["RequestLog", "Admission"], "RequestLog outermost: refusals get request ids and log lines"
    admission = app.user_middleware[1]
    # Middleware keeps its keyword arguments as objects: the app installs Admission with its Limiter
    assert cast(Limiter, admission.kwargs["limiter"]).limit == 5


# --- pool exhaustion ----------------------------------------------------------------------------
def test_an_exhausted_pool_is_overloaded_not_unavailable() -> None:
    exc = translate(nx.ConnectionAcquisitionTimeoutError("failed to obtain a connection from the pool within 2.0s"),
                    what="memory/vector_search")
    assert isinstance(exc, OverloadedError)
    assert not isinstance(exc, StoreUnavailableError)
    assert code_for(exc) == "OVERLOADED"
    assert exc.retry_after > 0
