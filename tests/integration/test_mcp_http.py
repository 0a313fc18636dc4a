"""MCP over streamable HTTP at /mcp: the SDK's real client against the app under uvicorn, on the real Neo4j.

The same bearer tokens as /graphql (401 before any tool runs when missing or wrong), the same namespace rights
(FORBIDDEN and no data), the same per-token rate limit (RATE_LIMITED as a tool result) and idempotent replays.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.mcp_support import (
    Served,
    check_tools,
    data,
    error_code,
    forbidden_flow,
    http_client,
    memory_flow,
    serve,
    task_flow,
    text_of,
)

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
async def served(migrated: Settings, embedder: Embedder) -> AsyncIterator[Served]:
    async with serve(migrated, embedder) as s:
        yield s


async def test_tools_resources_and_prompt_are_listed(served: Served) -> None:
    async with http_client(served.url, served.tokens.a) as client:
        await check_tools(client)


async def test_memory_and_task_flow_and_another_token_sees_nothing(served: Served) -> None:
    mark = f"heron{uuid.uuid4().hex[:8]}"
    async with http_client(served.url, served.tokens.a) as client:
        ids = await memory_flow(client, served.ns_a, mark)
        await task_flow(client, served.ns_a)
    async with http_client(served.url, served.tokens.b) as other:
        await forbidden_flow(other, served.ns_a, ids, mark)
    async with http_client(served.url, served.tokens.a_read_only) as reader:  # reads A, writes nothing
        found = data(await reader.call_tool("memory_search", {"query": f"{mark} archive", "namespaces": [served.ns_a]}))
        assert {h["id"] for h in found["results"]} & set(ids)
        refused = await reader.call_tool("memory_delete", {"namespace": served.ns_a, "ids": ids})
        assert error_code(refused) == "FORBIDDEN"
        unnamed = await reader.call_tool("memory_stats", {})  # writes no namespace: it must name one
        assert error_code(unnamed) == "INVALID_INPUT"


@pytest.mark.parametrize("authorization", [None, "Bearer gm_not-a-real-token", "Basic dXNlcjpwYXNz"])
async def test_a_missing_or_wrong_token_gets_401_before_any_tool_runs(served: Served,
                                                                      authorization: str | None) -> None:
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(served.url, json=INITIALIZE, headers=headers)
        assert response.status_code == 401, response.text
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "memory_stats", "arguments": {"namespace": served.ns_a}}}
        assert (await http.post(served.url, json=call, headers=headers)).status_code == 401


async def test_the_sdk_client_without_a_token_cannot_connect(served: Served) -> None:
    with pytest.raises(ExceptionGroup) as caught:  # the SDK reports the HTTP 401 as an MCPError from its tasks
        async with http_client(served.url, None) as client:
            await client.list_tools()
    assert caught.group_contains(MCPError), repr(caught.value)


async def test_a_session_belongs_to_the_token_that_opened_it(served: Served) -> None:
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(served.url, json=INITIALIZE,
                                 headers={**MCP_HEADERS, "Authorization": f"Bearer {served.tokens.a}"})
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        hijack = await http.post(served.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers={
            **MCP_HEADERS, "Authorization": f"Bearer {served.tokens.b}", "Mcp-Session-Id": session,
            "Mcp-Protocol-Version": "2025-06-18"})
        assert hijack.status_code == 404


async def test_the_rate_limit_gives_rate_limited(migrated: Settings, embedder: Embedder) -> None:
    async with serve(migrated, embedder, rate_limit_per_s=0.01, rate_limit_burst=3) as s, \
            http_client(s.url, s.tokens.a) as client:
        results = [await client.call_tool("memory_stats", {}) for _ in range(4)]
        assert [r.is_error for r in results] == [False, False, False, True]
        assert error_code(results[3]) == "RATE_LIMITED"
        assert results[3].structured_content is not None
        assert results[3].structured_content["error"]["retry_after"] > 0


async def test_neighborhood_without_namespace_finds_the_memory_where_memory_get_does(served: Served) -> None:
    mark = f"plover{uuid.uuid4().hex[:8]}"
    async with http_client(served.url, served.tokens.admin) as admin:
        written = data(await admin.call_tool("memory_write", {"namespace": served.shared, "memories": [
            {"content": f"The {mark} ferry leaves at nine", "entities": [f"{mark} ferry"]}]}))
    shared_id = written["items"][0]["id"]
    async with http_client(served.url, served.tokens.a) as client:  # writes A, reads the shared namespace too
        mine = data(await client.call_tool("memory_write", {"memories": [{"content": f"The {mark} bus is late"}]}))
        own_id = mine["items"][0]["id"]
        assert data(await client.call_tool("memory_get", {"id": shared_id}))["namespace"] == served.shared
        around = data(await client.call_tool("memory_neighborhood", {"id": shared_id}))
        center = next(n for n in around["nodes"] if n["key"] == around["center"])
        assert center["id"] == shared_id
        assert data(await client.call_tool("memory_neighborhood", {"id": own_id}))["nodes"]
        missing = await client.call_tool("memory_neighborhood", {"id": f"{mark}-missing"})
        assert error_code(missing) == "NOT_FOUND"
        assert served.ns_a not in text_of(missing)  # looked for everywhere it may read, not only in A
    async with http_client(served.url, served.tokens.a_read_only) as reader:  # writes nothing: no home namespace
        assert data(await reader.call_tool("memory_neighborhood", {"id": own_id}))["nodes"]
    async with http_client(served.url, served.tokens.b) as other:  # may not read A: not found, nothing shown
        hidden = await other.call_tool("memory_neighborhood", {"id": own_id})
        assert error_code(hidden) == "NOT_FOUND"
        assert mark not in text_of(hidden)


async def test_update_clears_valid_until(served: Served) -> None:
    async with http_client(served.url, served.tokens.a) as client:
        written = data(await client.call_tool("memory_write", {"memories": [
            {"content": f"The kiosk {uuid.uuid4().hex[:8]} is open until May",
             "valid_until": "2031-05-01T00:00:00Z"}]}))
        memory_id = written["items"][0]["id"]
        assert data(await client.call_tool("memory_get", {"id": memory_id}))["valid_until"] is not None
        both = await client.call_tool("memory_update", {"id": memory_id, "clear_valid_until": True,
                                                        "valid_until": "2032-01-01T00:00:00Z"})
        assert error_code(both) == "INVALID_INPUT"
        cleared = data(await client.call_tool("memory_update", {"id": memory_id, "clear_valid_until": True}))
        assert cleared["valid_until"] is None
        assert data(await client.call_tool("memory_get", {"id": memory_id}))["valid_until"] is None


async def test_lax_numbers_and_booleans_are_refused_naming_the_field(served: Served) -> None:
    async with http_client(served.url, served.tokens.a) as client:
        for k in ("5", True, 5.5):
            refused = await client.call_tool("memory_search", {"query": "anything", "k": k})
            assert error_code(refused) == "INVALID_INPUT", k
            assert refused.structured_content is not None
            assert refused.structured_content["error"]["message"].startswith("k: "), refused.structured_content
        taken = await client.call_tool("memory_search", {"query": "anything", "k": 3, "rerank": "none",
                                                         "as_of": "2030-01-01T00:00:00Z", "consensus": False})
        assert data(taken)["rerank"] == "none"  # an enum as its value and a time as ISO text are taken
