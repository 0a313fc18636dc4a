"""The MCP surface is pinned: tool names, annotations and argument names change only on purpose; and the
boundary (bad arguments, rate limit, unexpected failure, unknown tool) answers with coded results, in process."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from graphmem.errors import NotFoundError, RateLimitedError, StoreUnavailableError, ValidationError
from graphmem.mcp.errors import error_payload
from graphmem.mcp.resources import parse_uri
from graphmem.mcp.server import Caller, build_server
from graphmem.mcp.tools import TOOLS, namespace_of
from graphmem.security import Principal, RateLimiter

# name: (readOnly, destructive, idempotent)
ANNOTATIONS = {
    "memory_search": (True, False, True),
    "memory_write": (False, False, False),
    "memory_get": (True, False, True),
    "memory_update": (False, True, True),
    "memory_delete": (False, True, True),
    "memory_restore": (False, False, True),
    "memory_relate": (False, False, True),
    "memory_neighborhood": (True, False, True),
    "task_start": (False, False, False),
    "task_log": (False, False, False),
    "task_end": (False, False, False),
    "memory_reflect": (False, False, True),
    "memory_stats": (True, False, True),
    "memory_consolidate": (False, True, True),
}
ARGUMENTS = {
    "memory_search": {"query", "namespaces", "k", "hops", "expansion_mode", "summaries", "kinds", "rerank", "fusion",
                      "channels", "include_superseded", "as_of", "created_after", "created_before", "consensus",
                      "min_trust", "detail"},
    "memory_write": {"namespace", "memories", "request_id", "dedupe"},
    "memory_get": {"id", "namespace"},
    "memory_update": {"namespace", "id", "content", "tags", "confidence", "importance", "valid_from", "valid_until",
                      "clear_valid_until"},
    "memory_delete": {"namespace", "ids"},
    "memory_restore": {"namespace", "ids"},
    "memory_relate": {"namespace", "relations", "request_id"},
    "memory_neighborhood": {"namespace", "id", "hops", "types"},
    "task_start": {"namespace", "title", "agent", "id", "request_id"},
    "task_log": {"namespace", "task_id", "turns", "request_id"},
    "task_end": {"namespace", "task_id", "outcome", "reflect"},
    "memory_reflect": {"namespace", "task_id", "force"},
    "memory_stats": {"namespace"},
    "memory_consolidate": {"namespace", "dry_run"},
}
REQUIRED = {"memory_search": ["query"], "memory_write": ["memories"], "memory_get": ["id"],
            "memory_update": ["id"], "memory_delete": ["ids"], "memory_restore": ["ids"],
            "memory_relate": ["relations"], "memory_neighborhood": ["id"], "task_log": ["task_id", "turns"],
            "task_end": ["task_id"], "memory_reflect": ["task_id"], "memory_consolidate": ["namespace"]}


def test_the_tool_list_and_annotations_are_pinned() -> None:
    tools = [t.tool() for t in TOOLS]
    assert [t.name for t in tools] == list(ANNOTATIONS)
    for tool in tools:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool.name)
        a = tool.annotations
        assert a is not None
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint) == ANNOTATIONS[tool.name], tool.name
        assert a.open_world_hint is False, tool.name
        assert tool.title, tool.name
        assert tool.description is not None, tool.name
        assert len(tool.description) >= 40, tool.name


def test_input_schemas_name_their_arguments_and_refuse_others() -> None:
    for spec in TOOLS:
        schema = spec.tool().input_schema
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False, spec.name
        assert set(schema["properties"]) == ARGUMENTS[spec.name], spec.name
        assert sorted(schema.get("required", [])) == sorted(REQUIRED.get(spec.name, [])), spec.name


def test_inputs_have_bounds() -> None:
    search = next(t for t in TOOLS if t.name == "memory_search").tool().input_schema["properties"]
    assert (search["k"]["minimum"], search["k"]["maximum"]) == (1, 50)
    assert (search["hops"]["minimum"], search["hops"]["maximum"]) == (0, 3)
    assert search["query"]["maxLength"] == 2000
    write = next(t for t in TOOLS if t.name == "memory_write").tool().input_schema
    assert (write["properties"]["memories"]["minItems"], write["properties"]["memories"]["maxItems"]) == (1, 100)
    assert write["$defs"]["MemoryItem"]["properties"]["content"]["maxLength"] == 8000


def test_every_tool_has_an_object_output_schema() -> None:
    for spec in TOOLS:
        out = spec.tool().output_schema
        assert out is not None
        assert out["type"] == "object", spec.name
        assert out["properties"], spec.name


def test_namespace_defaults_only_to_the_one_writable_namespace() -> None:
    assert namespace_of(Principal("a", write=frozenset({"mine"})), None) == "mine"
    assert namespace_of(Principal("a", write=frozenset({"mine"})), "other") == "other"  # the service decides
    with pytest.raises(ValidationError, match="namespace is required"):
        namespace_of(Principal("b", write=frozenset({"x", "y"})), None)
    with pytest.raises(ValidationError):
        namespace_of(Principal("ro", read=frozenset({"x"})), None)
    with pytest.raises(ValidationError):
        namespace_of(Principal("root", admin=True), None)


def test_error_payloads_use_the_graphql_codes() -> None:
    assert error_payload(NotFoundError("memory 'x' not found")) == {"code": "NOT_FOUND",
                                                                    "message": "memory 'x' not found"}
    assert error_payload(RateLimitedError(1.5))["retry_after"] == 1.5
    assert error_payload(RateLimitedError(0.0004)) == {  # rounded up to the millisecond: a wait is never 0
        "code": "RATE_LIMITED", "message": "rate limit exceeded; retry after 0.01s", "retry_after": 0.001}
    unavailable = error_payload(StoreUnavailableError("bolt://10.0.0.3:7687 refused"))
    assert unavailable["code"] == "UNAVAILABLE"
    assert "10.0.0.3" not in unavailable["message"]
    assert error_payload(KeyError("secret detail")) == {"code": "INTERNAL", "message": "Internal server error"}


def test_memory_uris() -> None:
    assert parse_uri("memory://team-a/abc123") == ("team-a", "abc123")
    for bad in ("memory://team-a", "http://team-a/x", "memory://team-a/x/y", "memory:///x", "memory://a/x?q=1"):
        with pytest.raises(ValidationError):
            parse_uri(bad)


@dataclass
class NoServices:
    """A state with a rate limiter and nothing else: a call that gets past the boundary fails unexpectedly."""

    limiter: RateLimiter

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} in this test (with a secret detail)")


async def test_the_boundary_answers_with_coded_results_in_process() -> None:
    state: Any = NoServices(RateLimiter(0.001, 3))
    server = build_server(lambda ctx: Caller(Principal("unit", write=frozenset({"u"})), state))
    async with Client(server) as client:
        listed = await client.list_tools()
        assert {t.name for t in listed.tools} == {t.name for t in TOOLS} - {"memory_consolidate"}  # admins only
        bad = await client.call_tool("memory_search", {"query": "x", "k": 500})
        assert bad.is_error
        assert bad.structured_content is not None
        assert bad.structured_content["error"]["code"] == "INVALID_INPUT"
        assert bad.content[0].type == "text"
        assert bad.content[0].text.startswith("INVALID_INPUT: k")
        typo = await client.call_tool("memory_stats", {"namespce": "u"})  # unknown argument: refused
        assert typo.is_error
        assert typo.structured_content is not None
        assert typo.structured_content["error"]["code"] == "INVALID_INPUT"
        crash = await client.call_tool("memory_stats", {})
        assert crash.is_error
        assert crash.structured_content == {"error": {"code": "INTERNAL", "message": "Internal server error"}}
        assert crash.content[0].type == "text"
        assert "secret" not in crash.content[0].text
        limited = await client.call_tool("memory_stats", {})
        assert limited.is_error
        assert limited.structured_content is not None
        assert limited.structured_content["error"]["code"] == "RATE_LIMITED"
        assert limited.structured_content["error"]["retry_after"] > 0
        with pytest.raises(MCPError, match="unknown tool"):
            await client.call_tool("no_such_tool", {})
        prompt = await client.get_prompt("use_memory", {"task": "plan the trip"})
        text = prompt.messages[0].content
        assert text.type == "text"
        assert "memory_search" in text.text
        assert "plan the trip" in text.text


async def test_an_admin_only_tool_is_offered_to_admins_only() -> None:
    """Calling it unlisted is still answered FORBIDDEN (``test_consolidation_api``)."""
    state: Any = NoServices(RateLimiter(100.0, 100))
    admin = build_server(lambda ctx: Caller(Principal("root", admin=True), state))
    async with Client(admin) as client:
        assert {t.name for t in (await client.list_tools()).tools} == {t.name for t in TOOLS}
    writer = build_server(lambda ctx: Caller(Principal("writer", write=frozenset({"u"})), state))
    async with Client(writer) as client:
        assert "memory_consolidate" not in {t.name for t in (await client.list_tools()).tools}
