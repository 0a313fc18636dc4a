"""MCP over streamable HTTP at /mcp, beside /graphql: the same bearer tokens, refused with 401 before the MCP
server sees the request.

The app's lifespan runs :meth:`McpHttp.run` (the SDK's session manager) after it built the services. The
guard authenticates every HTTP request (``TokenStore.authenticate``, as /graphql's guard does), puts the
principal on the ASGI scope for the tools (:func:`http_caller`) and names it as the request's user, so the SDK
binds a session to the token that opened it (another token gets 404 for that session). Rate limits are spent
per tool call and resource read, not per HTTP message (an MCP session also sends handshakes and notices).
"""

from __future__ import annotations

import json
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.types import Message, Receive, Scope, Send

from graphmem.api.edge import refusal
from graphmem.errors import UnauthenticatedError
from graphmem.mcp.server import Caller, Ctx, build_server
from graphmem.security import Principal

if TYPE_CHECKING:
    from graphmem.api.app import AppState
    from graphmem.config import Settings

PRINCIPAL_KEY = "graphmem.principal"
INVALID_PARAMS = -32602
NOT_A_MESSAGE = "Validation error: the body is not a JSON-RPC 2.0 request, notification or response"
"""What a client is told of a JSON body that is no JSON-RPC message (the SDK's own text is pydantic's report: model
class names, pydantic's version and links to its docs)."""


def http_caller(ctx: Ctx) -> Caller:
    """The caller of a message that came over HTTP: the principal the guard put on its request's scope."""
    request: Any = ctx.request
    principal = None if request is None else request.scope.get(PRINCIPAL_KEY)
    if not isinstance(principal, Principal):
        raise UnauthenticatedError("missing bearer token")
    state: AppState = request.app.state.graphmem
    return Caller(principal, state)


class McpHttp:
    """The ASGI endpoint of /mcp: bearer auth, then the SDK's streamable HTTP transport."""

    def __init__(self, settings: Settings) -> None:
        self.sessions = StreamableHTTPSessionManager(app=build_server(http_caller),
                                                     max_request_body_size=settings.api_max_body_bytes)

    def run(self) -> AbstractAsyncContextManager[None]:
        """The session manager's lifetime (enter it in the app's lifespan, once)."""
        return self.sessions.run()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        state: AppState = scope["app"].state.graphmem
        headers = dict(scope.get("headers") or [])
        header = headers.get(b"authorization")
        try:
            principal = state.tokens.authenticate(None if header is None else header.decode("latin-1"))
        except UnauthenticatedError as exc:
            await refusal(401, exc.code, str(exc), {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        scope[PRINCIPAL_KEY] = principal
        scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=principal.name, scopes=[]))
        await self.sessions.handle_request(scope, receive, masking_validation_reports(send))


def masking_validation_reports(send: Send) -> Send:
    """``send``, with the body of a 400 answer carrying the SDK's "Validation error: <pydantic's report>" replaced by
    :data:`NOT_A_MESSAGE` (other answers pass untouched)."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def masked(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start" and message["status"] == 400:
            start = message  # held until its body is known
            return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = _masked_body(b"".join(chunks))
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return masked


def _masked_body(body: bytes) -> bytes:
    try:
        answer = json.loads(body)
    except ValueError:
        return body
    error = answer.get("error") if isinstance(answer, dict) else None
    if (isinstance(error, dict) and error.get("code") == INVALID_PARAMS
            and str(error.get("message", "")).startswith("Validation error:")):
        answer["error"] = {**error, "message": NOT_A_MESSAGE}
        return json.dumps(answer).encode()
    return body
