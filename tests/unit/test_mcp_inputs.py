"""The tools' arguments as a model sends them: numbers, booleans and times only in the JSON type their schema
names (refused as INVALID_INPUT naming the field), enums and ISO times as text; and what the schemas tell a model
(neighbourhood edge types as an enum, what rerank does, who may consolidate, what reflect and stats read)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest
from mcp import Client

from graphmem.mcp import inputs as i
from graphmem.mcp.server import Caller, build_server
from graphmem.mcp.tools import BY_NAME
from graphmem.models import MemoryKind, RelationType
from graphmem.retrieval.types import RerankMode
from graphmem.security import Principal, RateLimiter
from graphmem.service.browse import NEIGHBORHOOD_TYPES

LAX: list[tuple[str, dict[str, Any], str]] = [  # (tool, arguments, the field the refusal names)
    ("memory_search", {"query": "x", "k": "5"}, "k"),
    ("memory_search", {"query": "x", "k": True}, "k"),
    ("memory_search", {"query": "x", "k": 5.0}, "k"),
    ("memory_search", {"query": "x", "hops": "1"}, "hops"),
    ("memory_search", {"query": "x", "consensus": 1}, "consensus"),
    ("memory_search", {"query": "x", "include_superseded": "true"}, "include_superseded"),
    ("memory_search", {"query": "x", "min_trust": "0.5"}, "min_trust"),
    ("memory_search", {"query": "x", "min_trust": False}, "min_trust"),
    ("memory_search", {"query": "x", "as_of": 1700000000}, "as_of"),
    ("memory_write", {"memories": [{"content": "c", "confidence": "1"}]}, "memories.0.confidence"),
    ("memory_write", {"memories": [{"content": "c", "expires_at": 1.5}]}, "memories.0.expires_at"),
    ("memory_write", {"memories": [{"content": "c"}], "dedupe": "false"}, "dedupe"),
    ("memory_update", {"id": "m", "clear_valid_until": 1}, "clear_valid_until"),
    ("memory_relate", {"relations": [{"source_id": "a", "target_id": "b", "type": "SUPPORTS", "weight": True}]},
     "relations.0.weight"),
    ("memory_neighborhood", {"id": "m", "hops": "2"}, "hops"),
    ("memory_neighborhood", {"id": "m", "types": ["LIKES"]}, "types.0"),
    ("task_end", {"task_id": "t", "reflect": "yes"}, "reflect"),
    ("memory_reflect", {"task_id": "t", "force": 0}, "force"),
    ("memory_consolidate", {"namespace": "n", "dry_run": "true"}, "dry_run"),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), LAX)
def test_the_argument_models_refuse_lax_values(tool: str, arguments: dict[str, Any], field: str) -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        BY_NAME[tool].args.model_validate(arguments)
    assert ".".join(str(p) for p in caught.value.errors()[0]["loc"]) == field


async def test_a_lax_value_is_an_invalid_input_result_naming_the_field() -> None:
    state: Any = type("State", (), {"limiter": RateLimiter(1000.0, 1000)})()
    server = build_server(lambda ctx: Caller(Principal("unit", write=frozenset({"u"})), state))
    async with Client(server) as client:
        for tool, arguments, field in LAX:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            assert result.structured_content is not None
            assert result.structured_content["error"]["code"] == "INVALID_INPUT", (tool, arguments)
            assert result.structured_content["error"]["message"].startswith(f"{field}: "), result.structured_content
            assert result.content[0].type == "text"
            assert result.content[0].text.startswith(f"INVALID_INPUT: {field}: ")


def test_enums_as_values_iso_times_and_whole_numbers_for_fractions_are_taken() -> None:
    search = i.SearchArgs.model_validate({"query": "x", "k": 5, "rerank": "llm", "kinds": ["lesson"],
                                          "as_of": "2024-05-01T12:00:00Z", "created_after": "2024-05-01",
                                          "min_trust": 1, "consensus": True})
    assert (search.k, search.rerank, search.kinds, search.min_trust) == (5, RerankMode.LLM, [MemoryKind.LESSON], 1.0)
    assert search.as_of == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert search.created_after == datetime(2024, 5, 1)  # naive: the service reads it as UTC
    write = i.WriteArgs.model_validate({"memories": [{"content": "c", "confidence": 1, "kind": "episodic",
                                                      "valid_until": "2030-01-01T00:00:00+02:00"}]})
    assert write.memories[0].kind is MemoryKind.EPISODIC
    relate = i.RelateArgs.model_validate({"relations": [{"source_id": "a", "target_id": "b", "type": "CAUSES"}]})
    assert relate.relations[0].type is RelationType.CAUSES
    around = i.NeighborhoodArgs.model_validate({"id": "m", "types": ["SUPPORTS", "ABOUT"]})
    assert around.types == ["SUPPORTS", "ABOUT"]


def test_the_published_schemas_name_the_strict_types() -> None:
    search = BY_NAME["memory_search"].tool().input_schema["properties"]
    assert search["k"]["type"] == "integer"
    assert search["consensus"]["type"] == "boolean"
    assert search["min_trust"]["type"] == "number"
    assert {"type": "string", "format": "date-time"} in search["as_of"]["anyOf"]
    update = BY_NAME["memory_update"].tool().input_schema["properties"]
    assert update["clear_valid_until"] == {"default": False, "description": update["clear_valid_until"]["description"],
                                           "title": "Clear Valid Until", "type": "boolean"}


def test_neighborhood_types_are_published_as_an_enum_of_the_edge_types() -> None:
    types = BY_NAME["memory_neighborhood"].tool().input_schema["properties"]["types"]
    items = next(t for t in types["anyOf"] if t.get("type") == "array")["items"]
    assert items["type"] == "string"
    assert set(items["enum"]) == NEIGHBORHOOD_TYPES
    assert {t.value for t in RelationType} <= set(items["enum"])


def test_rerank_is_described() -> None:
    rerank = BY_NAME["memory_search"].tool().input_schema["properties"]["rerank"]
    text = rerank.get("description", "")
    for word in ("formula (default", "llm", "needs an LLM", "fallback_reason", "none"):
        assert word in text, word


def test_descriptions_say_who_may_run_what_and_what_is_read() -> None:
    consolidate = BY_NAME["memory_consolidate"].tool()
    assert consolidate.description is not None
    assert consolidate.description.startswith("Admin tokens only")
    assert consolidate.title is not None
    assert "admin tokens only" in consolidate.title
    reflect = BY_NAME["memory_reflect"].tool().description or ""
    assert "ended task's" not in reflect
    assert "open task is reflected too" in reflect.lower()
    assert "force" in reflect
    stats = BY_NAME["memory_stats"].tool().description or ""
    assert "reads the one namespace your token writes" in stats
    neighborhood = BY_NAME["memory_neighborhood"].tool().description or ""
    assert "every namespace it reads" in neighborhood
