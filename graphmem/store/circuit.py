"""Every call of the store goes through here: retried as the driver would retry it, failed at once while Neo4j is
known to be down.

The driver's own retry loop (``execute_read``/``execute_write``) cannot be told that the server is gone: with the
process dead each call retried for ``max_transaction_retry_time`` (10 s) before it said so, and a caller with a 5 s
timeout saw timeouts, not errors. So the store runs explicit transactions and retries them here, with the driver's
policy (``exc.is_retryable()``, exponential backoff with jitter, until ``retry_s``), and every outcome feeds a
:class:`~graphmem.store.breaker.Breaker`:

- a connection failure (:func:`~graphmem.store.errors.is_connection_failure`) counts towards opening it, and is
  retried only while it is still closed;
- while it is open, calls raise :class:`~graphmem.errors.CircuitOpenError` (UNAVAILABLE, ``retry_after``) at once,
  and a background task pings Neo4j every ``probe_s`` until it answers, which closes the breaker again: the API
  recovers by itself.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import TypeVar

from neo4j import exceptions as nx

from graphmem.errors import CircuitOpenError, StoreUnavailableError, ceil_seconds
from graphmem.store.breaker import Breaker
from graphmem.store.errors import is_connection_failure, translate

log = logging.getLogger("graphmem.store")

T = TypeVar("T")
FIRST_DELAY_S = 0.05
MAX_DELAY_S = 1.0
DRIVER_ERRORS = (nx.Neo4jError, nx.DriverError, OSError)


def retryable(exc: BaseException) -> bool:
    """The driver's own verdict: transient errors, a dropped connection, an unreachable server."""
    return isinstance(exc, nx.Neo4jError | nx.DriverError) and exc.is_retryable()


class Circuit:
    """A breaker, the retry loop around it, and the prober that closes it (``ping``: one cheap round trip)."""

    def __init__(self, breaker: Breaker, ping: Callable[[], Awaitable[None]], *, retry_s: float,
                 probe_timeout_s: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.breaker = breaker
        self._ping = ping
        self.retry_s = retry_s
        self.probe_timeout_s = probe_timeout_s
        self._clock = clock
        self._sleep = sleep
        self._prober: asyncio.Task[None] | None = None

    def check(self, what: str) -> None:
        """Raise CircuitOpenError when Neo4j is known to be down (and make sure a prober is running)."""
        if self.breaker.closed:
            return
        self._start_prober()
        retry = self.breaker.retry_after()
        raise CircuitOpenError(f"{what}: Neo4j is down (circuit open after {self.breaker.failures} connection "
                               f"failures); next probe in {ceil_seconds(retry, 2):.2f}s", retry_after=retry)

    async def call(self, what: str, attempt: Callable[[], Awaitable[T]], *, retry: bool = True) -> T:
        """``attempt()``, tried again on retryable errors (``retry``: for statements that may run twice)."""
        deadline = self._clock() + self.retry_s
        delay = FIRST_DELAY_S
        while True:
            self.check(what)
            try:
                result = await attempt()
            except DRIVER_ERRORS as exc:
                if is_connection_failure(exc):
                    self.failed()
                elif isinstance(exc, nx.Neo4jError):
                    self.breaker.success()  # the server answered (a constraint, a deadlock): it is there
                pause = delay * random.uniform(0.8, 1.2)
                if not (retry and retryable(exc) and self.breaker.closed and self._clock() + pause <= deadline):
                    raise translate(exc, what=what) from exc
            else:
                self.breaker.success()
                return result
            await self._sleep(pause)
            delay = min(delay * 2, MAX_DELAY_S)

    async def probe(self, what: str, attempt: Callable[[], Awaitable[T]], *, timeout_s: float) -> T:
        """A readiness probe: one try within ``timeout_s``. Its connection failures feed the breaker like any
        call's; no answer in time does not (a busy server is slow, not down: counting it would turn load into an
        outage, as it did right after a restart)."""
        try:
            async with asyncio.timeout(timeout_s):  # not wait_for: on 3.11 it can swallow a cancellation
                return await self.call(what, attempt, retry=False)
        except TimeoutError as exc:
            raise StoreUnavailableError(f"{what}: no answer from Neo4j within {timeout_s:.2f}s") from exc

    def failed(self) -> None:
        """Count one connection failure; start the prober when it opened the breaker."""
        if self.breaker.failure():
            log.warning("Neo4j unreachable after %d consecutive connection failures: failing fast, probing every "
                        "%.2fs", self.breaker.failures, self.breaker.probe_s)
            self._start_prober()

    def _start_prober(self) -> None:
        if self._prober is None or self._prober.done():
            self._prober = asyncio.get_running_loop().create_task(self._probe_until_closed())

    async def _probe_until_closed(self) -> None:
        while not self.breaker.closed:
            await self._sleep(self.breaker.until_probe())
            if not self.breaker.begin_probe():
                continue
            try:
                async with asyncio.timeout(self.probe_timeout_s):
                    await self._ping()
            except Exception as exc:  # noqa: BLE001 - any failure of the ping keeps the breaker open
                self.breaker.failure()
                log.debug("Neo4j probe failed: %s", exc)
            else:
                self.breaker.success()
                log.warning("Neo4j answers again: circuit closed")

    async def close(self) -> None:
        """Stop the prober (the store is closing)."""
        prober, self._prober = self._prober, None
        if prober is not None and not prober.done():
            prober.cancel()
            with suppress(asyncio.CancelledError):
                await prober
