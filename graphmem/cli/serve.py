"""``graphmem serve``: the GraphQL API under uvicorn.

The app's lifespan (connect Neo4j, apply the schema, load the embedder) runs here, before uvicorn takes the app:
a start that fails (no tokens, Neo4j unreachable, a schema mismatch) raises its own error, which the command
line reports in one line, instead of uvicorn logging a traceback. Uvicorn's lifespan shutdown then closes what
the start opened, inside its signal handling, as it would have.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from graphmem.config import Settings
from graphmem.errors import ConfigError
from graphmem.security.tokens import hash_token, make_entry, new_token, parse_token_entries

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.types import Receive, Scope, Send

log = logging.getLogger("graphmem.api")

DEMO_TOKEN_ENV = "GRAPHMEM_DEMO_TOKEN"  # noqa: S105 - the name of a variable, not a secret
DEMO_TOKEN_NAME = "demo-token"  # noqa: S105
MIN_DEMO_TOKEN_CHARS = 16


def with_demo_token(settings: Settings, given: str | None) -> tuple[Settings, str]:
    """``settings`` with one more inline token entry (beside GRAPHMEM_TOKENS): ``demo-token``, which reads and
    writes the demo namespaces and reads the shared one; and the line announcing it. The token is ``given``
    (GRAPHMEM_DEMO_TOKEN) when set, else a fresh one, printed in that line; only its hash is kept."""
    if given is not None and given.strip():
        secret = given.strip()
        if len(secret) < MIN_DEMO_TOKEN_CHARS:
            raise ConfigError(f"{DEMO_TOKEN_ENV} must be at least {MIN_DEMO_TOKEN_CHARS} characters")
        shown = f"the value of {DEMO_TOKEN_ENV}"
    else:
        secret, _ = new_token()
        shown = secret
    namespaces = list(settings.demo_namespaces)
    entry = make_entry(DEMO_TOKEN_NAME, hash_token(secret), write=namespaces, shared=True)
    inline = settings.tokens if settings.tokens is not None and settings.tokens.strip() else None
    entries = [*(parse_token_entries(inline, source="GRAPHMEM_TOKENS") if inline else []), entry]
    tokens = json.dumps({"tokens": [e.to_dict() for e in entries]})
    rights = f"reads and writes {', '.join(namespaces)}, reads {settings.shared_namespace}"
    return settings.model_copy(update={"tokens": tokens}), f"demo token ({rights}): {shown}"


def listen(host: str, port: int) -> socket.socket:
    """The bound server socket (before the slow start, so a taken port fails at once; it listens after the start).

    Made with protocol IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on accepted sockets whose ``proto`` says
    TCP, and an accepted socket takes the listener's. Without it every response of a kept-alive connection (the
    headers, then the body: two writes) waited for the client's delayed ACK, 40 ms on Linux, also for /healthz."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc} (another server there? "
                          f"give --port or set GRAPHMEM_API_PORT)") from None
    return sock


class Lifespan:
    """The app's lifespan, entered and left in ONE task of its own: the MCP session manager's task group (anyio)
    must be exited by the task that entered it, and uvicorn's shutdown runs in another task than our startup."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self._started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._own(), name="graphmem-lifespan")

    async def _own(self) -> None:
        async with self.app.router.lifespan_context(self.app):
            self._started.set_result(None)
            await self._stop.wait()

    async def started(self) -> None:
        """Wait for the startup; its error (a ConfigError, Neo4j down, ...) is raised here as itself."""
        await asyncio.wait({self._started, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if not self._started.done():
            self._task.result()  # raises the startup's error
            raise RuntimeError("the app's lifespan ended before its startup completed")

    async def stop(self) -> None:
        """Run the shutdown (its error, if any, is raised here); once only: later calls return at once."""
        if self._task.done():
            return
        self._stop.set()
        await self._task


class Started:
    """The app for uvicorn once its lifespan started here: startup is already done; shutdown stops ``lifespan``."""

    def __init__(self, app: Starlette, lifespan: Lifespan) -> None:
        self.app = app
        self.lifespan = lifespan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        await receive()  # lifespan.startup
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        try:
            await self.lifespan.stop()
        except Exception:
            log.exception("shutdown failed")
            await send({"type": "lifespan.shutdown.failed", "message": ""})
            return
        await send({"type": "lifespan.shutdown.complete"})


async def run_server(app: Starlette, sock: socket.socket, announce: Callable[[], None]) -> None:
    """Start the app's lifespan (its errors propagate), then serve on ``sock`` until uvicorn is told to stop."""
    import uvicorn

    lifespan = Lifespan(app)
    try:
        await lifespan.started()
        sock.listen(2048)  # what uvicorn would do next: the announced URL answers (connections queue until accepted)
        announce()
        config = uvicorn.Config(Started(app, lifespan), lifespan="on", log_config=None, access_log=False)
        await uvicorn.Server(config).serve(sockets=[sock])
    finally:
        await lifespan.stop()  # a no-op when uvicorn's shutdown ran it


@click.command()
@click.option("--host", default=None, help="Bind address (default GRAPHMEM_API_HOST, 127.0.0.1).")
@click.option("--port", default=None, type=click.IntRange(0, 65535),
              help="Port (default GRAPHMEM_API_PORT, 8000; 0: any free port).")
@click.option("--demo", is_flag=True, help="Local demo mode: requests without a token act as the demo principal.")
@click.option("--demo-token", is_flag=True,
              help=f"Also accept a token named {DEMO_TOKEN_NAME!r} that reads and writes the demo namespaces and "
                   f"reads the shared one: {DEMO_TOKEN_ENV} when set (at least {MIN_DEMO_TOKEN_CHARS} characters), "
                   "else a fresh one printed at start (docker-compose.yml uses this).")
def serve(host: str | None, port: int | None, demo: bool, demo_token: bool) -> None:
    """Serve the GraphQL API (GraphiQL at /graphql), /healthz, /readyz and /metrics."""
    from graphmem.api.app import create_app

    settings = Settings()
    if demo:
        settings = settings.model_copy(update={"demo_mode": True})
    lines: list[str] = []
    if demo_token:
        settings, line = with_demo_token(settings, os.environ.get(DEMO_TOKEN_ENV))
        lines.append(line)
    bind_host = host or settings.api_host
    bind_port = settings.api_port if port is None else port
    app = create_app(settings)  # no token configured: ConfigError here
    sock = listen(bind_host, bind_port)

    def announce() -> None:
        for text in [f"serving http://{bind_host}:{sock.getsockname()[1]}/graphql (GraphiQL), /healthz, /readyz, "
                     "/metrics", *lines]:
            click.echo(f"graphmem: {text}", err=True)

    with sock, contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run_server(app, sock, announce))
