"""What the HTTP fuzz (test_http_fuzz.py) shares: the app under a real uvicorn with two seeded tenants, the callers,
and the invariants every answer must hold. The request strategies are in fuzz_strategies.py. Not a test module.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from graphmem.api.app import create_app
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.neo4j_local.tools import free_port
from tests.integration.api_support import WRITE, Api, Seeded, api_settings, fresh_namespaces, make_tokens, seed_b, wipe

ROOT = Path(__file__).resolve().parents[2]
ERRORS_DOC = ROOT / "docs" / "errors.md"


def documented_api_codes() -> frozenset[str]:
    """The codes of the table "Codes of the API" in docs/errors.md."""
    text = ERRORS_DOC.read_text(encoding="utf-8")
    table = text.split("## Codes of the API", 1)[1].split("\n## ", 1)[0]
    return frozenset(re.findall(r"^\| `([A-Z0-9_]+)` \|", table, flags=re.MULTILINE))


CODES = documented_api_codes() - {"INTERNAL"}
"""The codes an answer may carry: every documented API code but INTERNAL (a bug)."""
LEAKY = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|/(?:work|home|usr|tmp)/|\bneo4j\.|\bNeo\.[A-Z]\w+Error|onnxruntime"
    r"|pydantic|strawberry|graphql\.|\bobject at 0x|\b[A-Z][A-Za-z0-9]*(?:Error|Exception)\b")
"""What no message may hold unless the request held it: tracebacks, file paths, Python and driver class names."""


@dataclass(frozen=True)
class Caller:
    """Who sends a request: a bearer token (None: no header) and the strings it must never be shown."""

    name: str
    authorization: str | None
    foreign: tuple[str, ...] = ()
    """Other tenants' namespace, ids and data: an answer holds one only if the request did."""


@dataclass
class Served:
    """The app under uvicorn (its own thread and event loop), tenants A and B seeded through the API."""

    url: str
    settings: Settings
    ns_a: str
    ns_b: str
    shared: str
    a: Seeded
    b: Seeded
    callers: dict[str, Caller]
    errors: list[logging.LogRecord] = field(default_factory=list)
    """ERROR records of the server's loggers (graphmem, uvicorn) since the start: an unexpected error each."""

    def known_strings(self) -> list[str]:
        """Namespaces (A's most often) and ids of both tenants: what the fuzz passes as arguments, besides random
        text."""
        return [*[self.ns_a] * 6, *[self.ns_b] * 3, self.shared, *self.a.memory_ids, self.a.task_id,
                *self.b.memory_ids, self.b.task_id]


class _Collect(logging.Handler):
    def __init__(self, sink: list[logging.LogRecord]) -> None:
        super().__init__(logging.ERROR)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        self.sink.append(record)


def secrets_of(seeded: Seeded, namespace: str) -> tuple[str, ...]:
    return (namespace, *seeded.markers, *seeded.memory_ids, seeded.task_id)


@asynccontextmanager
async def serve(base: Settings, embedder: Embedder, **overrides: Any) -> AsyncIterator[Served]:
    """The app on ``base``'s Neo4j under uvicorn on a free loopback port, without an LLM; A's and B's data written
    (the same shapes: api_support's seed_b, once per tenant); namespaces wiped afterwards."""
    ns_a, ns_b, shared = fresh_namespaces()
    tokens, entries = make_tokens(ns_a, ns_b)
    settings = api_settings(base, entries, shared=shared, llm_base_url=None, reflection_worker=False, **overrides)
    app = create_app(settings, embedder=embedder)
    records: list[logging.LogRecord] = []
    handler = _Collect(records)
    loggers = [logging.getLogger(name) for name in ("graphmem", "uvicorn.error")]
    for logger in loggers:
        logger.addHandler(handler)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_config=None,
                                           access_log=False))
    thread = threading.Thread(target=server.run, name="uvicorn-fuzz", daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while not server.started:
            assert thread.is_alive(), "uvicorn stopped at startup (see the log above)"
            assert time.monotonic() < deadline, "uvicorn did not start within 120s"
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            api = Api(app, client, settings, tokens, ns_a, ns_b, shared)
            seeded_b = await seed_b(api)
            mirrored = replace(api, tokens=replace(tokens, b=tokens.a), ns_b=ns_a)  # seed_b, written as A
            seeded_a = await seed_b(mirrored)
        foreign_a, foreign_b = secrets_of(seeded_b, ns_b), secrets_of(seeded_a, ns_a)
        callers = {
            "a": Caller("a", f"Bearer {tokens.a}", foreign_a),
            "a-read-only": Caller("a-read-only", f"Bearer {tokens.a_read_only}", foreign_a),
            "b": Caller("b", f"Bearer {tokens.b}", foreign_b),
            "admin": Caller("admin", f"Bearer {tokens.admin}"),  # may read every namespace
            "anonymous": Caller("anonymous", None, foreign_a + foreign_b),
            "wrong-token": Caller("wrong-token", f"Bearer {uuid.uuid4().hex}", foreign_a + foreign_b),
        }
        yield Served(url, settings, ns_a, ns_b, shared, seeded_a, seeded_b, callers, records)
    finally:
        server.should_exit = True
        await asyncio.to_thread(thread.join, 60)
        for logger in loggers:
            logger.removeHandler(handler)
        assert not thread.is_alive(), "uvicorn did not shut down"
        await wipe(base, ns_a, ns_b, shared)


@contextmanager
def client(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=120) as http:
        yield http


# --- invariants -----------------------------------------------------------------------------------------------


def leaks(text: str, sent: str, caller: Caller) -> list[str]:
    """The other tenants' strings in ``text`` that the request did not hold itself."""
    return [secret for secret in caller.foreign if secret in text and secret not in sent]


def leaky(message: str, sent: str) -> list[str]:
    """Tracebacks, paths and class names in ``message`` that the request did not hold itself."""
    return [found.group() for found in LEAKY.finditer(message) if found.group() not in sent]


def check_graphql(response: httpx.Response, sent: bytes, caller: Caller) -> dict[str, Any]:
    """The invariants of an answer of /graphql: no 5xx; JSON with data or errors; every error coded (never INTERNAL)
    with this request's id; no traceback, path, class name or other tenant's string in any message or datum."""
    where = f"{response.request.method} {caller.name} {sent[:3000]!r}\n-> {response.status_code} {response.text[:3000]}"
    assert response.status_code < 500, where
    assert response.headers.get("content-type", "").startswith("application/json"), where
    body = response.json()
    assert isinstance(body, dict), where
    assert "data" in body or body.get("errors"), where
    request_text = sent.decode("utf-8", errors="replace")
    assert leaks(response.text, request_text, caller) == [], where
    for error in body.get("errors") or []:
        extensions = error.get("extensions") or {}
        assert extensions.get("code") in CODES, where
        assert extensions.get("requestId") == response.headers["x-request-id"], where
        assert isinstance(error.get("message"), str), where
        assert leaky(error["message"], request_text) == [], where
    if response.status_code != 200:
        assert "data" not in body, where
    return body


def check_other(response: httpx.Response, sent: bytes, caller: Caller) -> None:
    """The invariants of an answer of any other path: no 5xx, no traceback or other tenant's string."""
    where = f"{response.request.method} {response.request.url.path} {caller.name} {sent[:2000]!r}\n-> " \
            f"{response.status_code} {response.text[:2000]}"
    assert response.status_code < 500, where
    request_text = sent.decode("utf-8", errors="replace")
    assert leaks(response.text, request_text, caller) == [], where
    if response.request.url.path != "/graphql":  # GraphiQL's page is JavaScript: its words are no messages
        assert leaky(response.text, request_text) == [], where


def assert_no_logged_errors(served: Served, since: int) -> None:
    """No unexpected error (an ERROR log record: a traceback, a masked INTERNAL) since record ``since``."""
    new = served.errors[since:]
    assert not new, "\n".join(f"{r.name}: {r.getMessage()} {r.exc_info!r}" for r in new[:5])


SEARCH = """query($q: String!, $ns: [String!]) {
  search(query: $q, namespaces: $ns, k: 5) { results { memory { id namespace content } } } }"""


def assert_still_serving(served: Served) -> None:
    """The server answers its health checks, a write and a search that finds it, as before the fuzz."""
    a = served.callers["a"]
    assert a.authorization is not None
    headers = {"Authorization": a.authorization}
    with client(served) as http:
        assert http.get("/healthz").json() == {"status": "ok"}
        ready = http.get("/readyz")
        assert ready.status_code == 200, ready.text
        mark = uuid.uuid4().hex[:10]
        content = f"After the fuzz the lighthouse keeper {mark} logs the tide"
        written = http.post("/graphql", headers=headers, json={"query": WRITE, "variables": {
            "memories": [{"namespace": served.ns_a, "kind": "SEMANTIC", "content": content}], "dedupe": False}})
        assert written.status_code == 200, written.text
        assert not written.json().get("errors"), written.text
        (item,) = written.json()["data"]["writeMemories"]["items"]
        found = http.post("/graphql", headers=headers, json={"query": SEARCH, "variables": {
            "q": f"lighthouse keeper {mark} tide", "ns": [served.ns_a]}})
        assert found.status_code == 200, found.text
        body = found.json()
        assert not body.get("errors"), body
        assert item["id"] in [r["memory"]["id"] for r in body["data"]["search"]["results"]], body
        assert json.dumps(body).count(served.ns_b) == 0
