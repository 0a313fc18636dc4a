"""Admission control: a bound on the requests served at once; the excess is refused at once, not queued.

Without it 200 concurrent clients ran the driver's pool (100 connections) dry on a 2-core box: requests queued for
10 s, were then reported as "Neo4j is unavailable" although it was up, and the searches that got through took 9.5 s
(p95). A CPU-bound service gets no more done with more requests in flight, only slower: so at most ``limit`` run,
at most ``max_queued`` more wait up to ``wait_s`` for a slot, and the rest get OVERLOADED (HTTP 503, Retry-After)
at once: a client can back off or try another replica while the admitted requests stay fast.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from contextlib import suppress

from starlette.types import ASGIApp, Receive, Scope, Send

from graphmem.api.edge import error_response

LIMITED_PATHS = ("/graphql", "/mcp")


class Limiter:
    """At most ``limit`` holders; a bounded FIFO queue of waiters, each waiting at most ``wait_s``.

    ``sleep`` measures the wait (``asyncio.sleep``; a test passes a fake clock). A freed slot is handed to the
    oldest waiter directly, so a newcomer never overtakes the queue.
    """

    def __init__(self, limit: int, *, max_queued: int, wait_s: float,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        if limit < 1 or max_queued < 0 or wait_s < 0:
            raise ValueError("limit must be >= 1, max_queued and wait_s >= 0")
        self.limit = limit
        self.max_queued = max_queued
        self.wait_s = wait_s
        self._sleep = sleep
        self._in_flight = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self.admitted = 0
        self.refused = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def queued(self) -> int:
        return sum(1 for waiter in self._waiters if not waiter.done())

    async def acquire(self) -> bool:
        """True: a slot is held (call :meth:`release` once done); False: refused, nothing is held."""
        if self._in_flight < self.limit and not self._waiters:
            self._in_flight += 1
            self.admitted += 1
            return True
        if self.wait_s == 0 or self.queued >= self.max_queued:
            self.refused += 1
            return False
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        timer = asyncio.ensure_future(self._sleep(self.wait_s))
        try:
            await asyncio.wait({waiter, timer}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            self._give_up(waiter)
            raise
        finally:
            timer.cancel()
        if waiter.done():  # handed a slot (perhaps in the same instant the wait ran out: keep it)
            self.admitted += 1
            return True
        self._give_up(waiter)
        self.refused += 1
        return False

    def _give_up(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done() and not waiter.cancelled():
            self.release()  # a slot was handed over: pass it on
            return
        waiter.cancel()
        with suppress(ValueError):  # already handed on by release()
            self._waiters.remove(waiter)

    def release(self) -> None:
        """Give a slot back: to the oldest waiter still waiting, else to the pool."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._in_flight -= 1


def limited(path: str, prefixes: Sequence[str] = LIMITED_PATHS) -> bool:
    return any(path == prefix or path.startswith(prefix + "/") for prefix in prefixes)


class Admission:
    """ASGI middleware: POSTs to /graphql and /mcp hold a slot of ``limiter`` while they run (the GraphiQL page, a
    GET, and long-lived MCP event streams do not); refused ones get OVERLOADED, HTTP 503, in the edge's JSON."""

    def __init__(self, app: ASGIApp, limiter: Limiter, *, retry_after_s: float = 1.0,
                 paths: Sequence[str] = LIMITED_PATHS) -> None:
        self.app = app
        self.limiter = limiter
        self.retry_after = str(max(1, math.ceil(retry_after_s)))
        self.paths = tuple(paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or not limited(scope["path"], self.paths):
            await self.app(scope, receive, send)
            return
        if not await self.limiter.acquire():
            message = (f"the server is at capacity ({self.limiter.limit} requests in flight); retry after "
                       f"{self.retry_after}s")
            await error_response(503, "OVERLOADED", message, {"Retry-After": self.retry_after})(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.limiter.release()
