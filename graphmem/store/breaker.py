"""A circuit breaker for the Neo4j connection: a pure state machine on an injectable clock.

    CLOSED ──N consecutive connection failures──> OPEN ──probe due (every probe_s)──> HALF_OPEN
       ^                                            ^                                    │
       └──────────── any answer from Neo4j ─────────┼──── the probe answers ─────────────┘
                                                    └──── the probe fails ───────────────┘

While the breaker is not CLOSED, calls fail at once (``retry_after`` says when the next probe is due) instead of
waiting for the driver's timeouts; one probe at a time (a cheap ping, ``graphmem.store.circuit``) decides whether
to close it again. "Connection failure" means the server could not be reached or answered that the database is
unavailable (``graphmem.store.errors.is_connection_failure``); an exhausted connection pool is no such failure.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable


class State(enum.Enum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class Breaker:
    """Counts consecutive connection failures; opens at ``threshold``, probes every ``probe_s`` while open."""

    def __init__(self, threshold: int = 3, probe_s: float = 0.5, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if threshold < 1 or probe_s <= 0:
            raise ValueError("threshold must be >= 1 and probe_s > 0")
        self.threshold = threshold
        self.probe_s = probe_s
        self._clock = clock
        self._state = State.CLOSED
        self._failures = 0
        self._next_probe = 0.0
        self.opened = 0
        """How often the breaker went from CLOSED to OPEN (for logs and metrics)."""

    @property
    def state(self) -> State:
        return self._state

    @property
    def closed(self) -> bool:
        return self._state is State.CLOSED

    @property
    def failures(self) -> int:
        """Consecutive connection failures so far."""
        return self._failures

    def retry_after(self) -> float:
        """Seconds until the next probe is due (0 when closed): the Retry-After hint of a refused call."""
        if self._state is State.CLOSED:
            return 0.0
        return max(self._next_probe - self._clock(), 0.0) or self.probe_s

    def until_probe(self) -> float:
        """Seconds until a probe may start (0: now)."""
        if self._state is not State.OPEN:
            return self.probe_s
        return max(self._next_probe - self._clock(), 0.0)

    def begin_probe(self) -> bool:
        """OPEN and a probe is due: go HALF_OPEN and return True (the caller probes and reports the outcome)."""
        if self._state is not State.OPEN or self._clock() < self._next_probe:
            return False
        self._state = State.HALF_OPEN
        self._next_probe = self._clock() + self.probe_s
        return True

    def success(self) -> None:
        """Neo4j answered (a result, or an error of its own such as a constraint): it is reachable."""
        self._state = State.CLOSED
        self._failures = 0

    def failure(self) -> bool:
        """A connection failure; True when this one opened the breaker."""
        self._failures += 1
        if self._state is State.HALF_OPEN:
            self._state = State.OPEN
            self._next_probe = self._clock() + self.probe_s
            return False
        if self._state is State.CLOSED and self._failures >= self.threshold:
            self._state = State.OPEN
            self._next_probe = self._clock() + self.probe_s
            self.opened += 1
            return True
        return False
