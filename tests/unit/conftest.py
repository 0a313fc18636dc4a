"""Fixtures shared by several unit test modules: docker-compose.yml and the Dockerfile as read by compose_support.py
(test_compose.py, test_compose_secrets.py, test_dockerfile.py), and an environment without token, demo or rate-limit
settings (the test_security_* modules, through ``pytest.mark.usefixtures``), and one without any GRAPHMEM_* setting
(the CLI modules)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.unit.compose_support import COMPOSE_FILE, _dockerfile_instructions


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    assert COMPOSE_FILE.is_file(), f"missing {COMPOSE_FILE.name}"
    data = yaml.safe_load(COMPOSE_FILE.read_text())
    assert isinstance(data, dict), "docker-compose.yml must be a mapping"
    return data


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    svc = compose.get("services")
    assert isinstance(svc, dict), "docker-compose.yml has no services mapping"
    return svc


@pytest.fixture(scope="module")
def build_paths(services: dict[str, dict[str, Any]]) -> tuple[Path, Path]:
    """(build context, Dockerfile) of the graphmem service, resolved like Compose does."""
    build = services["graphmem"].get("build")
    assert build, "graphmem service has no build section"
    if isinstance(build, str):
        context_rel, dockerfile_rel = build, "Dockerfile"
    else:
        context_rel, dockerfile_rel = build.get("context", "."), build.get("dockerfile", "Dockerfile")
    context = (COMPOSE_FILE.parent / context_rel).resolve()
    return context, (context / dockerfile_rel).resolve()


@pytest.fixture(scope="module")
def dockerfile(build_paths: tuple[Path, Path]) -> list[tuple[str, str]]:
    _, path = build_paths
    assert path.is_file(), f"Dockerfile named by docker-compose.yml not found: {path}"
    return _dockerfile_instructions(path)


@pytest.fixture
def clean_security_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("TOKENS", "TOKENS_FILE", "DEMO_MODE", "DEMO_NAMESPACES", "SHARED_NAMESPACE", "RATE_LIMIT_PER_S",
                "RATE_LIMIT_BURST"):
        monkeypatch.delenv(f"GRAPHMEM_{var}", raising=False)


@pytest.fixture
def no_graphmem_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GRAPHMEM_* variable of the shell running the tests reaches the command under test."""
    for key in list(os.environ):
        if key.startswith("GRAPHMEM_"):
            monkeypatch.delenv(key)
