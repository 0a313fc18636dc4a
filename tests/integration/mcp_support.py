"""What the MCP tests share: the app under a real uvicorn on a free port, SDK clients over streamable HTTP and
stdio, and helpers that read a tool result. Not a test module."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from graphmem.api.app import create_app
from graphmem.cli.serve import listen
from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import Tokens, api_settings, fresh_namespaces, make_tokens, wipe

Json = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Served:
    url: str
    """http://127.0.0.1:PORT/mcp"""
    settings: Settings
    tokens: Tokens
    ns_a: str
    ns_b: str
    shared: str


@asynccontextmanager
async def serve(base: Settings, embedder: Embedder, **overrides: Any) -> AsyncIterator[Served]:
    """The HTTP app (its lifespan, /graphql and /mcp) under uvicorn on 127.0.0.1, with the four tokens of
    api_support on fresh namespaces (wiped afterwards)."""
    ns_a, ns_b, shared = fresh_namespaces()
    tokens, entries = make_tokens(ns_a, ns_b)
    settings = api_settings(base, entries, shared=shared, **overrides)
    app = create_app(settings, embedder=embedder)
    sock = listen("127.0.0.1", 0)  # serve's own socket (TCP_NODELAY)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, lifespan="on", log_config=None, access_log=False))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(1200):
            if server.started or task.done():
                break
            await asyncio.sleep(0.1)
        if task.done():
            task.result()  # the start's own error
        assert server.started, "uvicorn did not start within 120 s"
        yield Served(f"http://127.0.0.1:{port}/mcp", settings, tokens, ns_a, ns_b, shared)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, timeout=60)
        sock.close()
        await wipe(base, ns_a, ns_b, shared)


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending ``Authorization: Bearer <token>`` (the HTTP client is ours
    to close: the SDK closes only one it made)."""
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=600)) as http, \
            Client(streamable_http_client(url, http_client=http), read_timeout_seconds=600) as client:
        yield client


def stdio_env(settings: Settings, token: str) -> dict[str, str]:
    """The environment of a ``graphmem mcp`` subprocess on ``settings``' Neo4j and tokens."""
    env = {
        "GRAPHMEM_NEO4J_URI": settings.neo4j_uri, "GRAPHMEM_NEO4J_USER": settings.neo4j_user,
        "GRAPHMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "GRAPHMEM_CACHE_DIR": str(settings.cache_dir), "GRAPHMEM_TOKENS": settings.tokens or "",
        "GRAPHMEM_SHARED_NAMESPACE": settings.shared_namespace, "GRAPHMEM_LOG_LEVEL": "WARNING",
        "GRAPHMEM_MCP_TOKEN": token, "HOME": os.environ.get("HOME", str(ROOT)),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    for key in ("GRAPHMEM_EMBEDDER", "GRAPHMEM_EMBEDDING_MODEL", "GRAPHMEM_SIGNING_KEYS", "JAVA_HOME"):
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def stdio_client(settings: Settings, token: str) -> Client:
    """The SDK's client on a ``graphmem mcp`` subprocess (the console script of this environment)."""
    command = str(Path(sys.executable).parent / "graphmem")
    params = StdioServerParameters(command=command, args=["mcp"], env=stdio_env(settings, token), cwd=str(ROOT))
    return Client(params, read_timeout_seconds=600)


def data(result: CallToolResult) -> Json:
    """The structured content of a call that must succeed."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    content: Json = result.structured_content  # Any in the SDK's model; graphmem's tools answer a JSON object
    return content


def error_code(result: CallToolResult) -> str:
    """The code of a call that must fail (and the text says it first)."""
    assert result.is_error, result.structured_content
    assert result.structured_content is not None
    code: str = result.structured_content["error"]["code"]
    first = result.content[0]
    assert first.type == "text"
    assert first.text.startswith(f"{code}: ")
    return code


def text_of(result: CallToolResult) -> str:
    """Everything a model could read of a result."""
    parts = [c.text for c in result.content if c.type == "text"]
    return "\n".join(parts) + json.dumps(result.structured_content)


TOOL_NAMES = {"memory_write", "memory_search", "memory_get", "memory_update", "memory_delete", "memory_restore",
              "memory_relate", "memory_neighborhood", "task_start", "task_log", "task_end", "memory_reflect",
              "memory_stats"}
"""What a token that is not an admin is offered (``memory_consolidate`` is listed to admin tokens only)."""


async def check_tools(client: Client) -> None:
    """The listing a client gets: every tool, with schemas and annotations."""
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == TOOL_NAMES
    for tool in listed.values():
        assert tool.description
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        assert tool.annotations is not None
        assert tool.annotations.open_world_hint is False
    assert listed["memory_search"].annotations is not None
    assert listed["memory_search"].annotations.read_only_hint
    delete = listed["memory_delete"].annotations
    assert delete is not None
    assert delete.destructive_hint
    assert not delete.read_only_hint
    assert listed["memory_write"].input_schema["properties"]["memories"]["maxItems"] == 100
    prompts = await client.list_prompts()
    assert [p.name for p in prompts.prompts] == ["use_memory"]
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["memory://{namespace}/{id}"]


async def memory_flow(client: Client, ns: str, mark: str) -> list[str]:
    """write -> replay -> relate -> search -> neighborhood -> update -> get/read -> delete -> restore -> stats, with
    a token that writes only ``ns`` (so no call names it); returns the ids written."""
    memories = [{"content": f"The vault code of the {mark} archive is 7431", "tags": ["vault"]},
                {"content": f"Only auditors may open the {mark} archive", "kind": "semantic"}]
    first = data(await client.call_tool("memory_write", {"memories": memories, "request_id": f"w-{mark}"}))
    assert first["namespace"] == ns
    assert not first["replayed"]
    assert [i["action"] for i in first["items"]] == ["created", "created"]
    ids = [i["id"] for i in first["items"]]
    again = data(await client.call_tool("memory_write", {"memories": memories, "request_id": f"w-{mark}"}))
    assert again["replayed"]
    assert [i["id"] for i in again["items"]] == ids

    related = data(await client.call_tool("memory_relate", {"relations": [
        {"source_id": ids[1], "target_id": ids[0], "type": "SUPPORTS"}]}))
    assert related["written"] == 1

    found = data(await client.call_tool("memory_search", {"query": f"what is the vault code of the {mark} archive?",
                                                          "k": 5}))
    hits = found["results"]
    assert hits, found
    assert hits[0]["id"] == ids[0], hits
    assert hits[0]["parts"] is None
    assert hits[0]["memory"] is None
    assert isinstance(hits[0]["path"], list)
    full = data(await client.call_tool("memory_search", {"query": f"{mark} archive", "detail": "full", "k": 5}))
    assert {h["id"] for h in full["results"]} >= set(ids)
    assert all(h["parts"]["similarity"] == h["similarity"] for h in full["results"])
    assert full["timings_ms"]
    assert "total" in full["timings_ms"]

    around = data(await client.call_tool("memory_neighborhood", {"id": ids[0]}))
    center = next(n for n in around["nodes"] if n["key"] == around["center"])
    assert center["id"] == ids[0]
    assert any(e["type"] == "SUPPORTS" for e in around["edges"]), around["edges"]

    updated = data(await client.call_tool("memory_update", {"id": ids[0], "content": f"The vault code of the "
                                                            f"{mark} archive is 9090", "importance": 0.9}))
    assert updated["content"].endswith("9090")
    assert updated["importance"] == 0.9
    got = data(await client.call_tool("memory_get", {"id": ids[0]}))
    assert got["content"] == updated["content"]
    assert got["uri"] == f"memory://{ns}/{ids[0]}"
    read = await client.read_resource(got["uri"])
    first_content = read.contents[0]
    assert json.loads(getattr(first_content, "text", "{}"))["content"] == updated["content"]

    deleted = data(await client.call_tool("memory_delete", {"ids": [ids[0]]}))
    assert deleted["changed"] == [ids[0]]
    after = data(await client.call_tool("memory_search", {"query": f"vault code of the {mark} archive", "k": 5}))
    assert ids[0] not in {h["id"] for h in after["results"]}
    restored = data(await client.call_tool("memory_restore", {"ids": [ids[0]]}))
    assert restored["changed"] == [ids[0]]
    back = data(await client.call_tool("memory_search", {"query": f"vault code of the {mark} archive", "k": 5}))
    assert ids[0] in {h["id"] for h in back["results"]}

    stats = data(await client.call_tool("memory_stats", {}))
    assert stats["namespace"] == ns
    assert stats["memories"].get("semantic/active") == 2, stats
    return ids


async def task_flow(client: Client, ns: str) -> None:
    """A task without reflection: start (a retried start is the same task), log turns, end (queued)."""
    started = data(await client.call_tool("task_start", {"title": "book a table", "request_id": "t-1"}))
    retried = data(await client.call_tool("task_start", {"title": "book a table", "request_id": "t-1"}))
    assert retried["id"] == started["id"]
    assert started["namespace"] == ns
    assert started["status"] == "open"
    logged = data(await client.call_tool("task_log", {"task_id": started["id"], "turns": [
        {"role": "user", "content": "Book a table for two at eight."},
        {"role": "assistant", "content": "Booked: two people, 20:00."}]}))
    assert [t["seq"] for t in logged["turns"]] == sorted(t["seq"] for t in logged["turns"])
    assert [t["role"] for t in logged["turns"]] == ["user", "assistant"]
    ended = data(await client.call_tool("task_end", {"task_id": started["id"], "outcome": "booked"}))
    assert ended["task"]["status"] == "ended"
    assert ended["task"]["outcome"] == "booked"
    assert ended["reflection_status"] == "pending"
    assert ended["reflection"] is None


async def forbidden_flow(client: Client, other_ns: str, other_ids: list[str], mark: str) -> None:
    """A token that may not read ``other_ns``: FORBIDDEN where it names it, NOT_FOUND for its ids, and no data."""
    search = await client.call_tool("memory_search", {"query": f"{mark} archive", "namespaces": [other_ns]})
    assert error_code(search) == "FORBIDDEN"
    assert mark not in text_of(search)
    for tool, args in (("memory_stats", {"namespace": other_ns}),
                       ("memory_write", {"namespace": other_ns, "memories": [{"content": "intrusion"}]}),
                       ("memory_delete", {"namespace": other_ns, "ids": other_ids}),
                       ("memory_neighborhood", {"namespace": other_ns, "id": other_ids[0]})):
        result = await client.call_tool(tool, args)
        assert error_code(result) == "FORBIDDEN", (tool, result)
        assert mark not in text_of(result)
    got = await client.call_tool("memory_get", {"id": other_ids[0]})
    assert error_code(got) == "NOT_FOUND"
    assert mark not in text_of(got)
    mine = data(await client.call_tool("memory_search", {"query": f"{mark} archive vault code"}))
    assert not set(other_ids) & {h["id"] for h in mine["results"]}
