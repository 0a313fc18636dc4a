"""Token-bucket rate limits, one bucket per principal.

A bucket holds up to ``burst`` tokens and refills at ``rate_per_s``; each request takes one. An empty bucket
raises RateLimitedError whose ``retry_after`` is the time until one token is back. A bucket left alone long
enough to be full again is the same as a new one, so the limiter drops such buckets (and, past ``max_keys``,
the least recently used ones) to keep memory bounded.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

from graphmem.errors import ConfigError, RateLimitedError

if TYPE_CHECKING:
    from graphmem.config import Settings

Clock = Callable[[], float]


class TokenBucket:
    """``burst`` tokens, refilled continuously at ``rate_per_s``; starts full. Not locked: RateLimiter locks."""

    def __init__(self, rate_per_s: float, burst: int, clock: Clock = time.monotonic) -> None:
        if not rate_per_s > 0:
            raise ConfigError(f"rate limit must be above 0 per second, got {rate_per_s}")
        if burst < 1:
            raise ConfigError(f"rate limit burst must be at least 1, got {burst}")
        self.rate_per_s = float(rate_per_s)
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst)
        self._updated = clock()

    def _refill(self) -> float:
        now = self._clock()
        elapsed = max(0.0, now - self._updated)
        self._tokens = min(float(self.burst), self._tokens + elapsed * self.rate_per_s)
        self._updated = now
        return now

    @property
    def tokens(self) -> float:
        """Tokens available now."""
        self._refill()
        return self._tokens

    @property
    def full(self) -> bool:
        return self.tokens >= self.burst

    def try_take(self, cost: float = 1.0) -> float:
        """Take ``cost`` tokens and return 0.0, or take nothing and return the seconds until they are there."""
        self._refill()
        if self._tokens >= cost:
            self._tokens -= cost
            return 0.0
        return (cost - self._tokens) / self.rate_per_s

    def take(self, cost: float = 1.0) -> None:
        if (wait := self.try_take(cost)) > 0.0:
            raise RateLimitedError(wait)


class RateLimiter:
    """One :class:`TokenBucket` per key (the principal's name); safe to share between threads and tasks."""

    def __init__(self, rate_per_s: float, burst: int, *, clock: Clock = time.monotonic,
                 max_keys: int = 10_000) -> None:
        TokenBucket(rate_per_s, burst, clock)  # validates the numbers once, here
        if max_keys < 1:
            raise ConfigError(f"max_keys must be at least 1, got {max_keys}")
        self.rate_per_s = float(rate_per_s)
        self.burst = burst
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Clock = time.monotonic) -> RateLimiter:
        return cls(settings.rate_limit_per_s, settings.rate_limit_burst, clock=clock)

    def __len__(self) -> int:
        return len(self._buckets)

    def _prune(self) -> None:
        # Least recently used first: drop buckets that are full again (forgetting them changes nothing).
        while self._buckets:
            oldest = next(iter(self._buckets.values()))
            if not oldest.full:
                break
            self._buckets.popitem(last=False)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)

    def check(self, key: str, cost: int = 1) -> None:
        """Spend ``cost`` requests of ``key``; RateLimitedError (with ``retry_after`` seconds until they are there)
        when fewer are left (then none is spent). A cost over the burst is the burst (what a full bucket holds)."""
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = TokenBucket(self.rate_per_s, self.burst, self._clock)
            else:
                self._buckets.move_to_end(key)
            wait = bucket.try_take(min(cost, self.burst))
            self._prune()
        if wait > 0.0:
            raise RateLimitedError(wait)
