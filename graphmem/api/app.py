"""The ASGI app: GraphQL (GraphiQL at /graphql), MCP (/mcp), /healthz, /readyz, /metrics; auth, limits, request ids."""

from __future__ import annotations

import asyncio
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from graphmem.api.admission import Admission, Limiter
from graphmem.api.context import Context, Loaders
from graphmem.api.cost import charger_var
from graphmem.api.edge import ALLOWED_METHODS, EdgeError, EdgeView, error_response, refusal
from graphmem.api.errors import MASKED
from graphmem.api.graphiql import GraphiQLPage
from graphmem.api.observability import Metrics, configure_logging, request_id_var
from graphmem.api.schema import root_operation_names, schema
from graphmem.browser import browser_routes
from graphmem.config import Settings
from graphmem.consolidation import Consolidator
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.errors import (
    ConfigError,
    GraphmemError,
    RateLimitedError,
    StoreError,
    UnauthenticatedError,
    ceil_seconds,
)
from graphmem.heap import settle
from graphmem.lifecycle.jobs import default_jobs
from graphmem.lifecycle.worker import MaintenanceWorker
from graphmem.llm import LLMClient
from graphmem.mcp.http import McpHttp
from graphmem.reflection import ReflectionService
from graphmem.reflection.worker import ReflectionWorker
from graphmem.retrieval import RetrievalService
from graphmem.retrieval.access import AccessRecorder
from graphmem.security import Principal, RateLimiter, TokenStore
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.service.scoped import ScopedService
from graphmem.store import Store, migrate

log = logging.getLogger("graphmem.api")


@dataclass
class AppState:
    settings: Settings
    store: Store
    memory: MemoryService
    retrieval: RetrievalService
    browse: BrowseService
    tokens: TokenStore
    limiter: RateLimiter
    metrics: Metrics
    reflection: ReflectionService
    consolidator: Consolidator | None = None


class GraphQLApp(EdgeView):
    def __init__(self, *args: Any, ide: GraphiQLPage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ide = ide

    async def render_graphql_ide(self, request: Request) -> Response:
        return self.ide.response()  # served from the app (no CDN), the demo token pre-filled when configured

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        state: AppState = request.app.state.graphmem
        principal: Principal = request.scope["graphmem.principal"]

        def charge(extra: int) -> None:  # the guard took one request: each further root field takes one more
            try:
                state.limiter.check(principal.name, extra)
            except RateLimitedError as exc:
                headers, extensions = retry_hint(exc)
                raise EdgeError(429, "RATE_LIMITED", f"{exc} (an operation of {extra + 1} root fields spends "
                                f"{extra + 1} requests)", headers, extensions=extensions) from None

        charger_var.set(charge)
        scoped = ScopedService(principal, state.memory, state.retrieval, state.browse,
                               shared_namespace=state.settings.shared_namespace, reflection=state.reflection,
                               consolidator=state.consolidator)
        return Context(service=scoped, loaders=Loaders.create(state.browse), request_id=request_id_var.get(),
                       principal=principal.name, metrics=state.metrics)


ANONYMOUS = Principal(name="anonymous")


def retry_hint(exc: RateLimitedError) -> tuple[dict[str, str], dict[str, Any]]:
    """The headers and extensions of a 429: whole seconds, rounded up (the header takes no fraction), in both."""
    retry = max(1, math.ceil(ceil_seconds(exc.retry_after, 3)))
    return {"Retry-After": str(retry)}, {"retryAfter": retry}
"""Serves the GraphiQL page: may read and write nothing."""


class BodyTooLarge(Exception):
    pass


class Guard:
    """For /graphql: allowed methods, body size limit, bearer auth and per-token rate limit, before GraphQL runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        state: AppState = request.app.state.graphmem
        if request.method not in ALLOWED_METHODS:
            allow = {"Allow": ", ".join(ALLOWED_METHODS)}
            await refusal(405, "METHOD_NOT_ALLOWED", f"{request.method} is not allowed on /graphql: send operations "
                          "with POST", allow)(scope, receive, send)
            return
        if request.method == "GET" and "text/html" in request.headers.get("accept", ""):
            scope["graphmem.principal"] = ANONYMOUS  # the GraphiQL page itself holds no data
            await self.app(scope, receive, send)
            return
        limit = state.settings.api_max_body_bytes
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await refusal(413, "INVALID_INPUT", f"request body over {limit} bytes")(scope, receive, send)
            return
        try:
            principal = state.tokens.authenticate(request.headers.get("authorization"))
            state.limiter.check(principal.name)
        except UnauthenticatedError as exc:
            await refusal(401, exc.code, str(exc), {"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        except RateLimitedError as exc:
            headers, extensions = retry_hint(exc)
            await refusal(429, "RATE_LIMITED", str(exc), headers, extensions=extensions)(scope, receive, send)
            return
        scope["graphmem.principal"] = principal
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await refusal(413, "INVALID_INPUT", f"request body over {limit} bytes")(scope, receive, send)


class RequestLog:
    """A request id per request (X-Request-ID in and out), one JSON log line and a counter per request."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        incoming = headers.get(b"x-request-id", b"").decode(errors="replace")
        rid = incoming if incoming and len(incoming) <= 64 and incoming.isprintable() else uuid.uuid4().hex
        token = request_id_var.set(rid)
        started = time.perf_counter()
        status = 500
        responded = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, responded
            if message["type"] == "http.response.start":
                status, responded = message["status"], True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception:
            log.exception("unhandled error (request %s)", rid)
            if responded:
                raise
            await error_response(500, "INTERNAL", MASKED)(scope, receive, send_with_id)
        finally:
            path = scope.get("path", "")
            self.metrics.http_requests.labels(path=path if path in KNOWN_PATHS else "other", status=str(status)).inc()
            log.info("request", extra={"method": scope.get("method"), "path": path, "status": status,
                                       "ms": round((time.perf_counter() - started) * 1000, 2)})
            request_id_var.reset(token)


KNOWN_PATHS = {"/graphql", "/mcp", "/healthz", "/readyz", "/metrics"}


async def healthz(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    """Ready when Neo4j answers within ``neo4j_probe_timeout_s``; at once 503 while its circuit breaker is open."""
    state: AppState = request.app.state.graphmem
    try:
        rows = await state.store.probe("admin/schema_version_get")
    except GraphmemError as exc:
        return JSONResponse({"status": "unavailable", "reason": str(exc)[:300]}, status_code=503)
    if not rows:
        return JSONResponse({"status": "unavailable", "reason": "schema not applied"}, status_code=503)
    return JSONResponse({"status": "ready", "schema_version": rows[0]["version"]})


async def metrics_endpoint(request: Request) -> Response:
    state: AppState = request.app.state.graphmem
    return PlainTextResponse(generate_latest(state.metrics.registry).decode(), media_type=CONTENT_TYPE_LATEST)


def create_app(settings: Settings, *, embedder: Embedder | None = None) -> Starlette:
    """The app; its lifespan connects Neo4j (applying the schema), loads the embedder and the LLM client."""
    configure_logging(settings.log_level)
    metrics = Metrics(known_operations=root_operation_names())
    tokens = TokenStore.from_settings(settings)  # fails loudly before serving when nobody could authenticate

    mcp_http = McpHttp(settings)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            store = await stack.enter_async_context(Store.connect(settings))
            await migrate(store, embedding_dim=embedding_dimension(settings))
            store.integrity.on_failure(metrics.observe_integrity_failure)
            model = embedder if embedder is not None else await asyncio.to_thread(make_embedder, settings)
            llm = LLMClient(settings) if settings.llm_base_url else None
            if llm is not None:
                stack.push_async_callback(llm.close)
            memory = MemoryService(store, model, settings)
            recorder = AccessRecorder(store)
            recorder.start()
            stack.push_async_callback(recorder.stop)
            retrieval = RetrievalService(store, model, settings, llm, versions=memory.versions, recorder=recorder,
                                         observer=metrics.observe_search)
            try:  # the search statement planned before the first question needs it (1-4 s on a fresh Neo4j)
                await retrieval.prepare()
            except StoreError as exc:  # a search plans it then: slower once, not broken
                log.warning("search statement not planned at start-up", extra={"error": str(exc)})
            reflection = ReflectionService(memory, llm, observer=metrics.observe_reflection)
            consolidator = Consolidator(memory, settings, llm, observer=metrics.observe_consolidation)
            if settings.reflection_worker:
                if llm is None:
                    raise ConfigError("GRAPHMEM_REFLECTION_WORKER needs an LLM: set GRAPHMEM_LLM_BASE_URL")
                worker = ReflectionWorker(reflection)
                worker.start()
                stack.push_async_callback(worker.stop)
            if settings.maintenance_worker:  # life cycle sweep (and consolidation) of every namespace, on schedule
                maintenance = MaintenanceWorker(store, default_jobs(memory, settings, llm), settings,
                                                observer=metrics.observe_maintenance)
                maintenance.start()
                stack.push_async_callback(maintenance.stop)
            app.state.graphmem = AppState(settings, store, memory, retrieval, BrowseService(store), tokens,
                                          RateLimiter.from_settings(settings), metrics, reflection, consolidator)
            await stack.enter_async_context(mcp_http.run())  # MCP over streamable HTTP at /mcp
            settle(settings.gc_freeze)  # what start-up loaded leaves Python's collections (graphmem.heap)
            log.info("graphmem ready", extra={"path": "/graphql"})
            yield

    ide = GraphiQLPage(settings)
    graphql_app = GraphQLApp(schema, graphql_ide="graphiql", allow_queries_via_get=False, ide=ide)
    app = Starlette(routes=[
        ide.assets(),
        browser_routes(),  # Neo4j Browser's guide and style (/browser/guide.html, /browser/graphmem.grass)
        Route("/healthz", healthz), Route("/readyz", readyz), Route("/metrics", metrics_endpoint),
        Route("/graphql", Guard(graphql_app)),  # every method: the guard answers 405 with a code
        Route("/mcp", mcp_http),  # bearer auth (401), then the MCP SDK's streamable HTTP transport
    ], lifespan=lifespan, exception_handlers={HTTPException: http_refusal})
    limiter = Limiter(settings.max_in_flight, max_queued=settings.max_queued, wait_s=settings.api_queue_wait_s)
    app.add_middleware(Admission, limiter=limiter, retry_after_s=settings.api_overloaded_retry_s)
    app.add_middleware(RequestLog, metrics=metrics)  # added last: the outermost (request ids for refusals too)
    return app


async def http_refusal(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (an unknown path, a method a route does not take) as coded JSON, like /graphql's."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}.get(status, "BAD_REQUEST")
    message = {404: f"no such path: {request.url.path[:200]}; the API is at /graphql (and /mcp, /healthz, /readyz, "
                    "/metrics)"}.get(status, str(getattr(exc, "detail", "")) or "refused")
    headers = getattr(exc, "headers", None)
    return refusal(status, code, message, dict(headers) if headers else None)

