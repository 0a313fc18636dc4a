"""Consolidation's front doors against the real Neo4j: the GraphQL mutation and the MCP tool are for admin tokens
only, a dry run plans and writes nothing, a run merges, ``memory(id).mergedInto`` names the successor, archived
memories leave search and stay listed by status, /metrics counts the run; ``graphmem consolidate`` prints the plan
and the counts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from graphmem.cli import cli
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.mcp.server import Caller, build_server
from graphmem.security import Principal
from tests.integration.api_support import WRITE, Api, codes, open_api

CONSOLIDATE = """
mutation Consolidate($ns: String!, $dry: Boolean!) {
  consolidate(namespace: $ns, dryRun: $dry) {
    namespace dryRun candidates groups splitOff merged archived failed llmCalls
    clusters { survivorId mergedBy text outcome archived members { id content kept } }
  }
}"""
MEMORY = """query($id: ID!, $ns: String) { memory(id: $id, namespace: $ns) { id status mergedInto } }"""
LISTED = """query($ns: String!, $st: [MemoryStatus!]) { memories(namespace: $ns, statuses: $st) { items { id } } }"""
SEARCH = """query($q: String!, $ns: [String!]) { search(query: $q, namespaces: $ns) { results { memory { id } } } }"""
TEXTS = {"a": "Caroline moved to Boston in 2021.", "b": "In 2021, Caroline moved to Boston.",
         "c": "Refunds are possible within 30 days of delivery.",
         "d": "Refunds are possible within 14 days of delivery."}


@pytest.fixture
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    # the best-supported member survives: no LLM, whatever the environment configures (CI sets one)
    async with open_api(migrated, embedder, seed=False, consolidation_eps=0.15, llm_base_url=None) as env:
        await env.data(env.tokens.a, WRITE, {"dedupe": False, "memories": [
            {"namespace": env.ns_a, "kind": "SEMANTIC", "content": text, "id": key,
             "confidence": 0.9 if key == "a" else 0.6} for key, text in TEXTS.items()]})
        yield env


async def test_the_mutation_is_for_admins_and_merges(api: Api) -> None:
    ns = api.ns_a
    refused = await api.call(api.tokens.a, CONSOLIDATE, {"ns": ns, "dry": True})
    assert codes(refused) == ["FORBIDDEN"]

    planned = (await api.data(api.tokens.admin, CONSOLIDATE, {"ns": ns, "dry": True}))["consolidate"]
    assert (planned["dryRun"], planned["candidates"], planned["merged"], planned["splitOff"]) == (True, 4, 0, 2)
    (cluster,) = planned["clusters"]
    assert cluster["members"] == [{"id": "a", "content": TEXTS["a"], "kept": True},
                                  {"id": "b", "content": TEXTS["b"], "kept": False}]
    assert (cluster["survivorId"], cluster["outcome"], cluster["archived"]) == ("a", "planned", ["b"])
    b = (await api.data(api.tokens.a, MEMORY, {"id": "b", "ns": ns}))["memory"]
    assert (b["status"], b["mergedInto"]) == ("ACTIVE", None)  # the dry run wrote nothing

    done = (await api.data(api.tokens.admin, CONSOLIDATE, {"ns": ns, "dry": False}))["consolidate"]
    assert (done["merged"], done["archived"], done["failed"], done["llmCalls"]) == (1, 1, 0, 0)
    assert done["clusters"][0]["outcome"] == "merged"
    b = (await api.data(api.tokens.a, MEMORY, {"id": "b", "ns": ns}))["memory"]
    assert (b["status"], b["mergedInto"]) == ("ARCHIVED", "a")
    assert (await api.data(api.tokens.a, MEMORY, {"id": "a", "ns": ns}))["memory"]["mergedInto"] is None
    found = (await api.data(api.tokens.a, SEARCH, {"q": "Where did Caroline move?", "ns": [ns]}))["search"]
    ids = [r["memory"]["id"] for r in found["results"]]
    assert "a" in ids
    assert "b" not in ids
    archived = (await api.data(api.tokens.a, LISTED, {"ns": ns, "st": ["ARCHIVED"]}))["memories"]["items"]
    assert [m["id"] for m in archived] == ["b"]

    again = (await api.data(api.tokens.admin, CONSOLIDATE, {"ns": ns, "dry": False}))["consolidate"]
    assert (again["merged"], again["clusters"]) == (0, [])
    metrics = (await api.client.get("/metrics")).text
    assert 'graphmem_consolidation_clusters_total{outcome="merged"} 1.0' in metrics
    assert 'graphmem_consolidation_merges_total{survivor="kept"} 1.0' in metrics
    assert "graphmem_consolidation_archived_total 1.0" in metrics
    assert "graphmem_consolidation_llm_calls_total 0.0" in metrics


async def test_the_mcp_tool_is_for_admins(api: Api) -> None:
    state = api.app.state.graphmem

    async def call(principal: Principal, args: dict[str, object]) -> dict[str, Any]:
        async with Client(build_server(lambda ctx: Caller(principal, state))) as client:
            result = await client.call_tool("memory_consolidate", args)
        content: dict[str, Any] | None = result.structured_content
        assert content is not None
        return content

    writer = Principal("writer", write=frozenset({api.ns_a}))
    refused = await call(writer, {"namespace": api.ns_a})
    assert refused["error"] == {"code": "FORBIDDEN", "message": "token 'writer' is not an admin token"}
    admin = Principal("root", admin=True)
    planned = await call(admin, {"namespace": api.ns_a, "dry_run": True})
    assert (planned["dry_run"], planned["merged"]) == (True, 0)
    assert [c["members"] for c in planned["clusters"]] == [["a", "b"]]
    done = await call(admin, {"namespace": api.ns_a})
    assert (done["merged"], done["archived"]) == (1, 1)


def test_the_command_prints_the_plan_then_merges(api: Api) -> None:
    env = {"GRAPHMEM_NEO4J_URI": api.settings.neo4j_uri,
           "GRAPHMEM_NEO4J_PASSWORD": api.settings.neo4j_password.get_secret_value(),
           "GRAPHMEM_CONSOLIDATION_EPS": "0.15", "GRAPHMEM_LLM_BASE_URL": ""}
    runner = CliRunner()
    dry = runner.invoke(cli, ["consolidate", api.ns_a, "--dry-run"], env=env)
    assert dry.exit_code == 0, dry.output
    assert f"* a: {TEXTS['a']}" in dry.stdout
    assert f"- b: {TEXTS['b']}" in dry.stdout
    assert "would merge 1, archiving 1 (dry run: nothing written)" in dry.stdout
    merged = runner.invoke(cli, ["consolidate", api.ns_a, "--json"], env=env)
    assert merged.exit_code == 0, merged.output
    assert '"merged": 1' in merged.stdout
    again = runner.invoke(cli, ["consolidate", api.ns_a], env=env)
    assert again.exit_code == 0, again.output
    assert "0 clusters" in again.stdout
