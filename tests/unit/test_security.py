"""graphmem.security's public surface and the errors of its refusals. Principals: test_security_principals.py;
token files, authentication and `graphmem token create`: test_security_tokens.py; rate limits:
test_security_rate_limits.py."""

from __future__ import annotations

import pytest

from graphmem.errors import ForbiddenError, GraphmemError, OverloadedError, RateLimitedError, UnauthenticatedError
from graphmem.security import __all__ as security_all

pytestmark = pytest.mark.usefixtures("clean_security_env")  # tests/unit/conftest.py


def test_public_surface() -> None:
    assert sorted(security_all) == [
        "Principal", "RateLimiter", "TokenBucket", "TokenEntry", "TokenStore", "add_token_entry",
        "demo_principal", "hash_token", "load_token_file", "make_entry", "new_token", "parse_token_entries",
    ]


def test_error_codes() -> None:
    assert UnauthenticatedError.code == "UNAUTHENTICATED"
    assert ForbiddenError.code == "FORBIDDEN"
    assert RateLimitedError.code == "RATE_LIMITED"
    err = RateLimitedError(1.5)
    assert isinstance(err, GraphmemError)
    assert err.retry_after == 1.5
    assert "1.50s" in str(err)
    assert str(RateLimitedError(0.001)).endswith("; retry after 0.01s")  # rounded up: never "0.00s"
    assert str(OverloadedError(retry_after=0.0004)).endswith("; retry after 0.01s")
