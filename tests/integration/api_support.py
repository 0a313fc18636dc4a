"""What the API tests share: tokens, an app with its lifespan running, a client, and seeded namespaces.

Not a test module: ``test_api*.py`` build their fixtures from :func:`open_api`.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.types import ASGIApp, Message

from graphmem.api.app import create_app
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.security import TokenEntry, make_entry, new_token
from graphmem.store import Store

Json = dict[str, Any]


@asynccontextmanager
async def lifespan(app: ASGIApp, timeout: float = 120.0) -> AsyncIterator[None]:
    """Drive the ASGI lifespan protocol as a server does: startup before the block, shutdown after it."""
    inbox: asyncio.Queue[Message] = asyncio.Queue()
    outbox: asyncio.Queue[Message] = asyncio.Queue()

    async def receive() -> Message:
        return await inbox.get()

    async def send(message: Message) -> None:
        await outbox.put(message)

    async def serve() -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        await app(scope, receive, send)

    task = asyncio.create_task(serve())

    async def reply(expected: str) -> None:
        waiter = asyncio.ensure_future(outbox.get())
        done, _ = await asyncio.wait({waiter, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            waiter.cancel()
            if task in done:
                task.result()  # raises the app's own error
            raise TimeoutError(f"no {expected} from the app within {timeout}s")
        message = waiter.result()
        if message["type"] != expected:
            with suppress(Exception):
                await task
            raise RuntimeError(f"lifespan: {message['type']}: {message.get('message', '')}")

    await inbox.put({"type": "lifespan.startup"})
    await reply("lifespan.startup.complete")
    try:
        yield
    finally:
        await inbox.put({"type": "lifespan.shutdown"})
        await reply("lifespan.shutdown.complete")
        await task


@dataclass(frozen=True)
class Tokens:
    a: str
    """Reads and writes namespace A, reads the shared one."""
    b: str
    """Reads and writes namespace B, reads the shared one."""
    a_read_only: str
    """Reads namespace A and the shared one, writes nothing."""
    admin: str


def make_tokens(ns_a: str, ns_b: str) -> tuple[Tokens, list[TokenEntry]]:
    (a, hash_a), (b, hash_b), (ro, hash_ro), (admin, hash_admin) = (new_token() for _ in range(4))
    entries = [make_entry("tok-a", hash_a, write=[ns_a], shared=True),
               make_entry("tok-b", hash_b, write=[ns_b], shared=True),
               make_entry("tok-a-ro", hash_ro, read=[ns_a], shared=True),
               make_entry("tok-admin", hash_admin, admin=True)]
    return Tokens(a=a, b=b, a_read_only=ro, admin=admin), entries


def api_settings(base: Settings, entries: Iterable[TokenEntry], *, shared: str, **overrides: Any) -> Settings:
    """``base`` (a migrated Neo4j) with inline tokens (GRAPHMEM_TOKENS form), a shared namespace of its own and a
    rate limit no test reaches unless it asks for one."""
    tokens = json.dumps({"tokens": [e.to_dict() for e in entries]})
    return base.model_copy(update={"tokens": tokens, "tokens_file": None, "demo_mode": False,
                                   "shared_namespace": shared, "rate_limit_per_s": 1000.0,
                                   "rate_limit_burst": 1000, "log_level": "WARNING", **overrides})


async def post(client: httpx.AsyncClient, token: str | None, query: str, variables: Json | None = None,
               operation: str | None = None, headers: dict[str, str] | None = None) -> httpx.Response:
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    body: Json = {"query": query, "variables": variables or {}}
    if operation is not None:
        body["operationName"] = operation
    return await client.post("/graphql", json=body, headers=sent)


def codes(body: Json) -> list[str]:
    return [e.get("extensions", {}).get("code", "") for e in body.get("errors") or []]


@dataclass
class Seeded:
    """B's data: what token A must never see."""

    memory_ids: list[str]
    task_id: str
    markers: list[str]
    """Strings that occur only in B's data (contents, title, turn, entity, tag)."""


@dataclass
class Api:
    app: Any
    client: httpx.AsyncClient
    settings: Settings
    tokens: Tokens
    ns_a: str
    ns_b: str
    shared: str
    b: Seeded = field(default_factory=lambda: Seeded([], "", []))

    async def call(self, token: str | None, query: str, variables: Json | None = None, *,
                   operation: str | None = None, headers: dict[str, str] | None = None) -> Json:
        """POST one operation; the JSON body (HTTP 200 expected)."""
        response = await post(self.client, token, query, variables, operation, headers)
        assert response.status_code == 200, response.text
        body: Json = response.json()
        return body

    async def data(self, token: str | None, query: str, variables: Json | None = None) -> Json:
        """The ``data`` of an operation that must succeed."""
        body = await self.call(token, query, variables)
        assert not body.get("errors"), body["errors"]
        data: Json = body["data"]
        return data


WRITE = """
mutation Write($memories: [MemoryInput!]!, $requestId: String, $dedupe: Boolean! = true) {
  writeMemories(memories: $memories, requestId: $requestId, dedupe: $dedupe) {
    replayed items { index id action similarity }
  }
}"""


async def seed_b(api: Api) -> Seeded:
    """B's memories (related), a task with a turn, an entity; written through the API with token B."""
    mark = uuid.uuid4().hex[:10]
    markers = [f"heron-{mark}-vault", f"osprey-{mark}-ledger", f"kestrel-{mark}-title", f"plover-{mark}-turn",
               f"Curlew{mark}Entity", f"egret{mark}tag"]
    task = await api.data(api.tokens.b, """
        mutation($task: TaskInput!) { startTask(task: $task) { id } }""",
        {"task": {"namespace": api.ns_b, "agent": "bot-b", "title": f"project {markers[2]}"}})
    task_id = task["startTask"]["id"]
    await api.data(api.tokens.b, """
        mutation($ns: String!, $id: String!, $turns: [TurnInput!]!) {
          logTurns(namespace: $ns, taskId: $id, turns: $turns) { id } }""",
        {"ns": api.ns_b, "id": task_id, "turns": [{"role": "USER", "content": f"the {markers[3]} says hello"}]})
    written = await api.data(api.tokens.b, WRITE, {"memories": [
        {"namespace": api.ns_b, "kind": "SEMANTIC", "content": f"The vault code of {markers[0]} is 7431",
         "entities": [markers[4]], "tags": [markers[5]], "taskId": task_id},
        {"namespace": api.ns_b, "kind": "EPISODIC", "content": f"The {markers[1]} was audited on Monday",
         "entities": [markers[4]]},
    ]})
    ids = [item["id"] for item in written["writeMemories"]["items"]]
    await api.data(api.tokens.b, """
        mutation($ns: String!, $rels: [RelationInput!]!) { relate(namespace: $ns, relations: $rels) }""",
        {"ns": api.ns_b, "rels": [{"sourceId": ids[0], "targetId": ids[1], "type": "SUPPORTS"}]})
    return Seeded(memory_ids=ids, task_id=task_id, markers=markers)


@asynccontextmanager
async def open_api(base: Settings, embedder: Embedder, *, seed: bool = True, wipe_after: bool = True,
                   **overrides: Any) -> AsyncIterator[Api]:
    """An app on ``base``'s Neo4j with the four tokens, its lifespan running, an ASGI client, fresh namespaces
    (wiped afterwards) and, with ``seed``, B's data written."""
    ns_a, ns_b, shared = fresh_namespaces()
    tokens, entries = make_tokens(ns_a, ns_b)
    settings = api_settings(base, entries, shared=shared, **overrides)
    app = create_app(settings, embedder=embedder)
    try:
        async with lifespan(app), httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                                    base_url="http://api.test", timeout=60) as client:
            api = Api(app, client, settings, tokens, ns_a, ns_b, shared)
            if seed:
                api.b = await seed_b(api)
            yield api
    finally:
        if wipe_after:
            await wipe(base, ns_a, ns_b, shared)


def fresh_namespaces() -> tuple[str, str, str]:
    """Namespaces A, B and a shared one of this app alone."""
    suffix = uuid.uuid4().hex[:10]
    return f"api-a-{suffix}", f"api-b-{suffix}", f"api-s-{suffix}"


async def wipe(base: Settings, *namespaces: str) -> None:
    async with Store.connect(base) as store:
        for ns in namespaces:
            await store.wipe_namespace(ns)
