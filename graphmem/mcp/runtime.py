"""``graphmem mcp``: the MCP server over stdio for one principal, the one its token names.

The services are those of ``graphmem serve``, built by the same code: the HTTP app's lifespan (connect Neo4j,
check and apply the schema, load the embedder and the LLM client, the access recorder and, when configured,
the reflection worker) runs here without a socket, and the tools run on the state it builds. The token is
checked before anything connects. stdout belongs to the protocol from the start: the SDK's ``stdio_server``
points fd 1 at stderr while it serves, so a library that prints while loading cannot corrupt the stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server.stdio import stdio_server

from graphmem.errors import GraphmemError, UnauthenticatedError
from graphmem.mcp import TOKEN_ENV
from graphmem.mcp.server import Caller, Ctx, build_server
from graphmem.security import Principal, TokenStore

if TYPE_CHECKING:
    from graphmem.api.app import AppState
    from graphmem.config import Settings
    from graphmem.embed import Embedder


def principal_of(settings: Settings, token: str | None) -> Principal:
    """The principal ``token`` names (in demo mode, no token is the demo principal); UnauthenticatedError."""
    tokens = TokenStore.from_settings(settings)  # ConfigError when no token is configured at all
    if token is None or not token.strip():
        if tokens.demo is not None:
            return tokens.demo
        raise UnauthenticatedError(f"no token: set {TOKEN_ENV} or pass --token")
    return tokens.authenticate(f"Bearer {token.strip()}")


async def serve_stdio(settings: Settings, token: str | None, *, embedder: Embedder | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes stdin."""
    from graphmem.api.app import create_app  # the app module imports the MCP HTTP endpoint: import it late

    principal = principal_of(settings, token)
    app = create_app(settings, embedder=embedder)
    try:
        async with stdio_server() as (read, write), app.router.lifespan_context(app):
            state: AppState = app.state.graphmem

            def caller(ctx: Ctx) -> Caller:
                return Caller(principal, state)

            server = build_server(caller)
            await server.run(read, write, server.create_initialization_options())
    except BaseExceptionGroup as group:  # the SDK's task groups wrap a failed start (Neo4j down, a bad schema)
        raise lone_expected(group) or group from None


def lone_expected(group: BaseExceptionGroup[BaseException]) -> GraphmemError | None:
    """The one GraphmemError a group holds, nested at any depth, when it holds nothing else."""
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        exc = pending.pop()
        if isinstance(exc, BaseExceptionGroup):
            pending.extend(exc.exceptions)
        else:
            leaves.append(exc)
    return leaves[0] if len(leaves) == 1 and isinstance(leaves[0], GraphmemError) else None
