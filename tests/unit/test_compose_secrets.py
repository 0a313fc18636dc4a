"""Static checks of docker-compose.yml's secrets (no Docker engine needed): the Neo4j password and the signing
key come from the environment, compose refuses to start without them, no literal password is committed, and the
graphmem service has a token out of the box (the demo token)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from graphmem.cli.serve import DEMO_TOKEN_ENV, DEMO_TOKEN_NAME, with_demo_token
from graphmem.config import Settings
from graphmem.security import TokenStore
from tests.unit.compose_support import (
    COMPOSE_FILE,
    PASSWORD_VAR,
    REQUIRED_PASSWORD,
    REQUIRED_SIGNING,
    SIGNING_VAR,
    _environment,
    command_words,
    interpolate,
    service_environment,
)


def test_password_is_required_from_env(services: dict[str, dict[str, Any]]) -> None:
    neo4j_auth = _environment(services["neo4j"]).get("NEO4J_AUTH", "")
    assert neo4j_auth.startswith("neo4j/"), f"NEO4J_AUTH must set the neo4j user's password, got {neo4j_auth!r}"
    assert REQUIRED_PASSWORD.fullmatch(neo4j_auth.removeprefix("neo4j/")), (
        f"NEO4J_AUTH must be neo4j/${{{PASSWORD_VAR}:?...}}, got {neo4j_auth!r}"
    )
    graphmem_password = _environment(services["graphmem"]).get(PASSWORD_VAR, "")
    assert REQUIRED_PASSWORD.fullmatch(graphmem_password), (
        f"graphmem's {PASSWORD_VAR} must be ${{{PASSWORD_VAR}:?...}}, got {graphmem_password!r}"
    )


def test_no_literal_password_anywhere(services: dict[str, dict[str, Any]]) -> None:
    dev_default = Settings.model_fields["neo4j_password"].default.get_secret_value()
    assert dev_default not in COMPOSE_FILE.read_text()
    for name, service in services.items():
        for key, value in _environment(service).items():
            if "PASSWORD" in key or key == "NEO4J_AUTH":
                secret = value.removeprefix("neo4j/") if key == "NEO4J_AUTH" else value
                assert REQUIRED_PASSWORD.fullmatch(secret), f"{name}.{key} holds a literal or optional password"


def test_interpolate_follows_compose_rules() -> None:
    env = {"SET": "x", "EMPTY": ""}
    assert interpolate("${SET:-d}/${EMPTY:-d}/${EMPTY-d}/${UNSET-d}/${SET}/${UNSET}/$$HOME", env) == "x/d//d/x//$HOME"
    assert interpolate("${SET:?needed}", env) == "x"
    with pytest.raises(AssertionError, match="without EMPTY: needed"):
        interpolate("${EMPTY:?needed}", env)


def test_graphmem_service_has_a_token_out_of_the_box(
    services: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`graphmem serve` refuses to start when no token is configured: with nothing exported but the password, the
    service's command and environment must give it one (the demo token it prints)."""
    env = service_environment(services["graphmem"], {PASSWORD_VAR: "a-long-secret",
                                                      SIGNING_VAR: "k1:a-long-signing-secret"})
    for key in [k for k in os.environ if k.startswith("GRAPHMEM_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert "--demo-token" in command_words(services["graphmem"]), "serve would refuse to start: no token configured"
    settings, line = with_demo_token(Settings(), env.get(DEMO_TOKEN_ENV))
    token = line.rsplit(": ", 1)[1]
    assert TokenStore.from_settings(settings).authenticate(f"Bearer {token}").name == DEMO_TOKEN_NAME


def test_signing_key_is_required_from_env(services: dict[str, dict[str, Any]]) -> None:
    """The store refuses to start without a signing key: compose must demand one, as it demands the password
    (a default key committed here would be everyone's key)."""
    value = _environment(services["graphmem"]).get(SIGNING_VAR, "")
    assert REQUIRED_SIGNING.fullmatch(value), f"{SIGNING_VAR} must be required from the environment, got {value!r}"
    with pytest.raises(AssertionError, match=SIGNING_VAR):
        service_environment(services["graphmem"], {PASSWORD_VAR: "a-long-secret"})
