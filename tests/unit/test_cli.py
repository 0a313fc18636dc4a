"""The command line's failure contract: an expected error is one line ``graphmem: error [CODE]: message`` on
stderr with a non-zero exit; an unexpected one keeps its traceback. And ``graphmem --version``."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.applications import Starlette

import graphmem.api.app
from graphmem.cli import cli, main
from graphmem.cli.errors import CommandError, error_line
from graphmem.config import Settings
from graphmem.errors import SchemaMismatchError, StoreUnavailableError

ROOT = Path(__file__).resolve().parents[2]
GRAPHMEM = Path(sys.executable).with_name("graphmem")


pytestmark = pytest.mark.usefixtures("no_graphmem_env")


def run_main(args: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capfd.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), out, err


@pytest.fixture
def start_fails(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """``create_app`` returns an app whose lifespan raises the error put in the yielded list (the way a schema
    mismatch or an unreachable Neo4j fails the real one, inside its lifespan)."""
    errors: list[BaseException] = []

    def create_app(settings: Settings) -> Starlette:
        @asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            raise errors[0]
            yield  # pragma: no cover

        return Starlette(lifespan=lifespan)

    monkeypatch.setattr(graphmem.api.app, "create_app", create_app)
    return errors


# --- the version --------------------------------------------------------------------------------------------------


def test_version_is_the_package_version(capfd: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["--version"], capfd)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert code == 0
    assert out.strip() == f"graphmem {project}"
    assert project == version("graphmem")


# --- serve: refusals before and during the start ----------------------------------------------------------------


def test_serve_without_tokens_is_one_line_from_the_installed_command(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_CACHE_DIR"] = str(tmp_path)
    done = subprocess.run([str(GRAPHMEM), "serve", "--port", "0"], capture_output=True, text=True, env=env,
                          timeout=120, check=False)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("graphmem: error [INVALID_CONFIG]: no API tokens configured")


@pytest.mark.parametrize(("error", "code"), [
    (SchemaMismatchError("the vector index 'memory_embedding' has 768 dimensions but the embedder gives 384"),
     "SCHEMA_MISMATCH"),
    (StoreUnavailableError("Neo4j at bolt://127.0.0.1:7687 is unreachable"), "UNAVAILABLE"),
])
def test_serve_whose_start_fails_is_one_line(start_fails: list[BaseException], error: Exception, code: str,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    start_fails.append(error)
    status, out, err = run_main(["serve", "--demo", "--port", "0"], capfd)
    assert status == 1
    assert err.splitlines() == [f"graphmem: error [{code}]: {error}"], err
    assert "Traceback" not in out + err


def test_serve_whose_start_has_a_bug_keeps_the_traceback(start_fails: list[BaseException]) -> None:
    start_fails.append(RuntimeError("a bug"))
    with pytest.raises(RuntimeError, match="a bug"):
        main(["serve", "--demo", "--port", "0"])


def test_serve_on_a_taken_port_is_one_line(start_fails: list[BaseException],
                                           capfd: pytest.CaptureFixture[str]) -> None:
    start_fails.append(AssertionError("the start must not run when the port is taken"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, _, err = run_main(["serve", "--demo", "--port", str(port)], capfd)
    assert status == 1
    assert err.splitlines() == [f"graphmem: error [INVALID_CONFIG]: cannot listen on 127.0.0.1:{port}: Address "
                                "already in use (another server there? give --port or set GRAPHMEM_API_PORT)"]


# --- the other kinds of expected failure --------------------------------------------------------------------------


def test_a_bad_setting_is_one_line(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPHMEM_API_PORT", "eighty")
    status, _, err = run_main(["serve"], capfd)
    assert status == 1
    assert err.splitlines() == ["graphmem: error [INVALID_CONFIG]: GRAPHMEM_API_PORT: Input should be a valid "
                                "integer, unable to parse string as an integer (got 'eighty')"]


@pytest.mark.parametrize(("args", "message"), [
    (["db", "nonsense"], "graphmem: error [USAGE]: No such command 'nonsense'. (see 'graphmem db --help')"),
    (["token", "create", "--name", "a", "--read", "a"],
     "graphmem: error [USAGE]: give --file or set GRAPHMEM_TOKENS_FILE (see 'graphmem token create --help')"),
])
def test_a_usage_error_is_one_line_exit_2(args: list[str], message: str, capfd: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_main(args, capfd)
    assert status == 2
    assert out == ""
    assert err.splitlines() == [message]


def test_a_graphmem_error_of_a_command_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    status, _, err = run_main(["reflect", "task", "ns", "task-1"], capfd)  # no GRAPHMEM_LLM_BASE_URL
    assert status == 1
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("graphmem: error [INVALID_CONFIG]: ")
    assert "GRAPHMEM_LLM_BASE_URL" in lines[0]


def test_a_command_error_is_the_same_line_under_click_runner() -> None:
    @cli.command("always-fails", hidden=True)
    def always_fails() -> None:
        raise CommandError("NOT_FOUND", "nothing here")

    try:
        result = CliRunner().invoke(cli, ["always-fails"])
    finally:
        cli.commands.pop("always-fails")
    assert result.exit_code == 1
    assert result.stderr == "graphmem: error [NOT_FOUND]: nothing here\n"


def test_error_line_indents_the_details_after_the_first_line() -> None:
    text = error_line("LOCAL_NEO4J", "the JVM died\n--- last lines of the Neo4j log ---\nOutOfMemoryError")
    assert text.splitlines() == ["graphmem: error [LOCAL_NEO4J]: the JVM died",
                                 "  --- last lines of the Neo4j log ---", "  OutOfMemoryError"]


# --- serve: a start that works, and the way it stops -----------------------------------------------------------

SERVE_A_FAKE_APP = """
import sys
from contextlib import asynccontextmanager
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
import graphmem.api.app
from graphmem.cli import main

def create_app(settings):
    @asynccontextmanager
    async def lifespan(app):
        yield
        print("lifespan closed", file=sys.stderr, flush=True)
    return Starlette(routes=[Route("/healthz", lambda request: PlainTextResponse("ok"))], lifespan=lifespan)

graphmem.api.app.create_app = create_app
main(["serve", "--demo", "--port", "0"])
"""


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 0), (signal.SIGTERM, -signal.SIGTERM)])
def test_serve_serves_and_closes_its_lifespan_when_stopped(signum: int, status: int) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    process = subprocess.Popen([sys.executable, "-c", SERVE_A_FAKE_APP], stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        found = re.match(r"graphmem: serving http://127\.0\.0\.1:(\d+)/graphql", first)
        assert found, first
        assert httpx.get(f"http://127.0.0.1:{found.group(1)}/healthz", timeout=10).text == "ok"
        process.send_signal(signum)  # Ctrl-C; docker stop
        assert process.wait(timeout=60) == status  # SIGTERM: re-raised after the shutdown, as uvicorn does
        assert process.stderr.read().splitlines() == ["lifespan closed"]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
