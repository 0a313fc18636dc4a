"""Rate limits: the token bucket (burst, refill, retry-after) and the per-key limiter that bounds its buckets."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.errors import ConfigError, RateLimitedError
from graphmem.security import RateLimiter, TokenBucket

pytestmark = pytest.mark.usefixtures("clean_security_env")  # tests/unit/conftest.py


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bucket_burst_then_refill() -> None:
    clock = FakeClock()
    bucket = TokenBucket(rate_per_s=2.0, burst=3, clock=clock)
    for _ in range(3):
        bucket.take()
    with pytest.raises(RateLimitedError) as info:
        bucket.take()
    assert info.value.retry_after == pytest.approx(0.5)
    clock.now += 0.2
    assert bucket.try_take() == pytest.approx(0.3)
    clock.now += 0.3
    bucket.take()
    clock.now += 100.0
    assert bucket.tokens == 3.0  # capped at burst


def test_bucket_rejects_bad_numbers() -> None:
    with pytest.raises(ConfigError):
        TokenBucket(0.0, 1)
    with pytest.raises(ConfigError):
        TokenBucket(1.0, 0)


def test_limiter_per_key() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_s=1.0, burst=2, clock=clock)
    limiter.check("alice")
    limiter.check("alice")
    with pytest.raises(RateLimitedError) as info:
        limiter.check("alice")
    assert info.value.retry_after == pytest.approx(1.0)
    limiter.check("bob")  # a separate bucket
    clock.now += 1.0
    limiter.check("alice")


def test_limiter_drops_idle_buckets_and_stays_bounded() -> None:
    clock = FakeClock()
    limiter = RateLimiter(rate_per_s=10.0, burst=5, clock=clock, max_keys=100)
    for i in range(50):
        limiter.check(f"k{i}")
    assert len(limiter) == 50
    clock.now += 1.0  # every bucket full again
    limiter.check("fresh")
    assert len(limiter) == 1
    for i in range(500):
        limiter.check(f"x{i}")
    assert len(limiter) == 100


def test_limiter_from_settings() -> None:
    limiter = RateLimiter.from_settings(Settings(rate_limit_per_s=5.0, rate_limit_burst=7))
    assert (limiter.rate_per_s, limiter.burst) == (5.0, 7)
