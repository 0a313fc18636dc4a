"""``graphmem mcp``'s start: which principal a token names, and a failed start reported as its own error."""

from __future__ import annotations

import json

import pytest

from graphmem.config import Settings
from graphmem.errors import StoreUnavailableError, UnauthenticatedError
from graphmem.mcp.runtime import lone_expected, principal_of
from graphmem.security import make_entry, new_token


def settings_with(token_hash: str, **overrides: object) -> Settings:
    entry = make_entry("agent", token_hash, write=["agent-ns"], shared=True)
    return Settings(tokens=json.dumps({"tokens": [entry.to_dict()]}), tokens_file=None, **overrides)  # type: ignore[arg-type]


def test_the_token_names_the_principal() -> None:
    token, digest = new_token()
    principal = principal_of(settings_with(digest), token)
    assert principal.name == "agent"
    assert principal.write == frozenset({"agent-ns"})


def test_no_token_or_a_wrong_one_is_unauthenticated() -> None:
    _, digest = new_token()
    with pytest.raises(UnauthenticatedError, match="GRAPHMEM_MCP_TOKEN"):
        principal_of(settings_with(digest), None)
    with pytest.raises(UnauthenticatedError, match="invalid token"):
        principal_of(settings_with(digest), "gm_wrong")


def test_demo_mode_without_a_token_is_the_demo_principal() -> None:
    _, digest = new_token()
    assert principal_of(settings_with(digest, demo_mode=True), "").name == "demo"


def test_a_lone_expected_error_is_unwrapped_from_task_groups() -> None:
    error = StoreUnavailableError("connect: Neo4j is unavailable")
    assert lone_expected(BaseExceptionGroup("outer", [ExceptionGroup("inner", [error])])) is error
    assert lone_expected(ExceptionGroup("two", [error, ValueError("x")])) is None
    assert lone_expected(ExceptionGroup("bug", [ValueError("x")])) is None
