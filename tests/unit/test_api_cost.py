"""What an operation costs against its token's rate limit (graphmem.api.cost) and a bucket's cost (pure)."""

from __future__ import annotations

import pytest

from graphmem.api.cost import root_fields
from graphmem.errors import RateLimitedError
from graphmem.security import RateLimiter
from graphql import parse


@pytest.mark.parametrize(("query", "operation", "expected"), [
    ("{ stats(namespace: \"a\") { namespace } }", None, 1),
    ("{ a: search(query: \"x\") { id } b: search(query: \"y\") { id } c: entities(namespace: \"n\") { name } }",
     None, 3),
    ("{ __typename a: stats(namespace: \"a\") { namespace } }", None, 1),  # introspection is free
    ("{ __schema { types { name } } }", None, 1),  # at least one
    ("query A { x: stats(namespace: \"a\") { namespace } } query B { y: stats(namespace: \"a\") { namespace } "
     "z: stats(namespace: \"b\") { namespace } }", "B", 2),
    ("query A { x: stats(namespace: \"a\") { namespace } } query B { y: a z: b }", "C", 1),  # unknown: GraphQL's
    ("{ ...F ... on Query { g: stats(namespace: \"a\") { namespace } } } "
     "fragment F on Query { a: x b: y ...F }", None, 3),  # a fragment spread in itself is counted once
    ("mutation { a: deleteMemories(namespace: \"n\", ids: [\"1\"]) b: deleteMemories(namespace: \"n\", ids: [\"2\"]) }",
     None, 2),
])
def test_root_fields(query: str, operation: str | None, expected: int) -> None:
    assert root_fields(parse(query), operation) == expected


def test_a_cost_takes_that_many_requests_or_none() -> None:
    limiter = RateLimiter(1.0, 5, clock=lambda: 0.0)  # time stands still
    limiter.check("t", 3)
    with pytest.raises(RateLimitedError) as refused:
        limiter.check("t", 3)  # 2 left: refused, and nothing spent
    assert refused.value.retry_after == pytest.approx(1.0)
    limiter.check("t", 2)
    with pytest.raises(RateLimitedError):
        limiter.check("t")


def test_a_cost_over_the_burst_is_the_burst() -> None:
    limiter = RateLimiter(1.0, 4, clock=lambda: 0.0)
    limiter.check("t", 20)  # a full bucket pays for any operation once
    with pytest.raises(RateLimitedError):
        limiter.check("t")
