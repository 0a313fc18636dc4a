"""Real `graphmem serve` processes for tests: the environment for a test Neo4j, start, wait for /readyz, stop.

Not a test module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import httpx
import pytest

from graphmem.config import Settings


def serve_env(settings: Settings, tokens: Path, port: int, **extra: str) -> dict[str, str]:
    """The environment of a `graphmem serve` on ``settings``' Neo4j with the token file ``tokens``; no LLM."""
    env = {**os.environ, "GRAPHMEM_NEO4J_URI": settings.neo4j_uri, "GRAPHMEM_NEO4J_USER": settings.neo4j_user,
           "GRAPHMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
           "GRAPHMEM_TOKENS_FILE": str(tokens), "GRAPHMEM_API_PORT": str(port),
           "GRAPHMEM_CACHE_DIR": str(settings.cache_dir), "GRAPHMEM_REFLECTION_WORKER": "false", **extra}
    env.pop("GRAPHMEM_LLM_BASE_URL", None)
    return env


def start(command: list[str], env: dict[str, str], log: Path, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """``command`` (``graphmem`` resolved in this interpreter's bin) with its output in ``log``."""
    if command[0] == "graphmem":
        command = [shutil.which("graphmem", path=str(Path(sys.executable).parent)) or "graphmem", *command[1:]]
    with log.open("wb") as sink:
        return subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, cwd=cwd)


def wait_ready(process: subprocess.Popen[bytes], url: str, log: Path, timeout_s: float = 240) -> None:
    """Until ``url``/readyz answers 200; a failure (with the log's tail) when the process exits or time runs out."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{process.args!r} exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    pytest.fail(f"{url}/readyz did not answer 200 within {timeout_s}s:\n{log.read_text()[-3000:]}")


def stop(processes: Iterable[subprocess.Popen[bytes]], *, kill: bool = False) -> None:
    """Terminate (or kill) every process still running and wait for it (kill after 20 s)."""
    running = [p for p in processes if p.poll() is None]
    for p in running:
        p.kill() if kill else p.terminate()
    for p in running:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=20)
