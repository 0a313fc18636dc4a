"""Every example operation (graphql/operations/*.graphql), run in sequence by the `gql` client over real HTTP
against a uvicorn server: writes first, then reads, ids flowing from one operation into the next."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from gql import Client, GraphQLRequest
from gql.client import AsyncClientSession
from gql.transport.exceptions import TransportQueryError
from gql.transport.httpx import HTTPXAsyncTransport

from graphmem.api.app import create_app
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.neo4j_local.tools import free_port
from graphql import OperationDefinitionNode
from tests.integration.api_support import api_settings, fresh_namespaces, make_tokens, wipe

ROOT = Path(__file__).resolve().parents[2]
OPERATIONS = ROOT / "graphql" / "operations"
SDL = ROOT / "graphql" / "schema.graphql"


@dataclass
class Served:
    url: str
    token: str
    namespace: str


@pytest.fixture
async def served(migrated: Settings, embedder: Embedder, llm_base_url: str) -> AsyncIterator[Served]:
    """The app under uvicorn on a free loopback port, in a thread with its own event loop (as in production)."""
    ns_a, ns_b, shared = fresh_namespaces()
    tokens, entries = make_tokens(ns_a, ns_b)
    app = create_app(api_settings(migrated, entries, shared=shared, llm_base_url=llm_base_url), embedder=embedder)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on", log_config=None,
                                           access_log=False))
    thread = threading.Thread(target=server.run, name="uvicorn-api-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped at startup (see the log above)"
        assert time.monotonic() < deadline, "uvicorn did not start within 120s"
        await asyncio.sleep(0.05)
    try:
        yield Served(f"http://127.0.0.1:{port}/graphql", tokens.a, ns_a)
    finally:
        server.should_exit = True
        await asyncio.to_thread(thread.join, 60)
        assert not thread.is_alive(), "uvicorn did not shut down"
        await wipe(migrated, ns_a, ns_b, shared)


@dataclass
class Operations:
    """Runs the example files by name; remembers which ran."""

    session: AsyncClientSession
    ran: list[str] = field(default_factory=list)

    async def __call__(self, name: str, **variables: Any) -> dict[str, Any]:
        request = GraphQLRequest((OPERATIONS / f"{name}.graphql").read_text(encoding="utf-8"),
                                 variable_values=variables, operation_name=name)
        self.ran.append(name)
        result: dict[str, Any] = await self.session.execute(request)
        return result


def test_every_file_holds_one_operation_named_after_it() -> None:
    files = sorted(OPERATIONS.glob("*.graphql"))
    assert len(files) >= 16
    for path in files:
        definitions = GraphQLRequest(path.read_text(encoding="utf-8")).document.definitions
        ops = [d for d in definitions if isinstance(d, OperationDefinitionNode)]
        assert len(ops) == 1, path.name
        assert ops[0].name is not None, path.name
        assert ops[0].name.value == path.stem, path.name


async def test_example_operations_in_sequence_over_http(served: Served) -> None:
    transport = HTTPXAsyncTransport(url=served.url, headers={"Authorization": f"Bearer {served.token}"}, timeout=600)
    client = Client(transport=transport, schema=SDL.read_text(encoding="utf-8"), execute_timeout=600)
    ns = served.namespace
    async with client as session:
        run = Operations(session)

        # --- writes ---
        task = (await run("StartTask", task={"namespace": ns, "agent": "support-bot",
                                              "title": "refund question"}))["startTask"]
        assert (task["namespace"], task["status"]) == (ns, "open")
        turns = (await run("LogTurns", namespace=ns, taskId=task["id"], turns=[
            {"role": "USER", "content": "When does my refund arrive?"},
            {"role": "ASSISTANT", "content": "Within five business days."}]))["logTurns"]
        assert [(t["seq"], t["role"], t["taskId"]) for t in turns] == [(0, "USER", task["id"]),
                                                                       (1, "ASSISTANT", task["id"])]
        batch = {"memories": [
            {"namespace": ns, "kind": "SEMANTIC", "content": "Refunds arrive within five business days",
             "entities": ["refund policy"], "tags": ["billing"], "taskId": task["id"],
             "derivedFrom": [turns[1]["id"]], "source": "ops-test",
             "metadata": [{"key": "channel", "value": "chat"}]},
            {"namespace": ns, "kind": "EPISODIC", "content": "The customer asked when the refund arrives",
             "entities": ["refund policy"]},
            {"namespace": ns, "kind": "SEMANTIC", "content": "Card payments settle after two days",
             "tags": ["billing"]},
        ], "requestId": "ops-write-1"}
        written = (await run("WriteMemories", **batch))["writeMemories"]
        assert written["replayed"] is False
        assert [(i["index"], i["action"]) for i in written["items"]] == [(0, "CREATED"), (1, "CREATED"),
                                                                         (2, "CREATED")]
        refund, asked, card = (i["id"] for i in written["items"])
        replay = (await run("WriteMemories", **batch))["writeMemories"]
        assert replay == {**written, "replayed": True}
        related = (await run("Relate", namespace=ns, relations=[
            {"sourceId": card, "targetId": refund, "type": "RELATES_TO", "weight": 0.9},
            {"sourceId": asked, "targetId": refund, "type": "SUPPORTS"}]))["relate"]
        assert related == 2

        # --- reads ---
        found = (await run("Search", query="card payments settle", namespaces=[ns], hops=1,
                           channels=["FULLTEXT"]))["search"]
        assert (found["query"], found["rerank"], found["cached"]) == ("card payments settle", "FORMULA", False)
        assert {t["stage"] for t in found["timings"]}
        by_id = {r["memory"]["id"]: r for r in found["results"]}
        assert card in by_id
        assert refund in by_id
        seed = by_id[card]
        assert seed["path"] == []
        assert [c["channel"] for c in seed["parts"]["channels"]] == ["fulltext"]
        assert seed["parts"]["channels"][0]["rank"] == 1
        reached = by_id[refund]
        assert reached["path"] == [{"sourceId": card, "targetId": refund, "type": "RELATES_TO", "weight": 0.9}]
        assert reached["seedId"] == card
        assert reached["parts"]["expansion"] > 0
        assert all(r["memory"]["namespace"] == ns for r in found["results"])

        one = (await run("Memory", id=refund))["memory"]
        assert (one["content"], one["namespace"], one["kind"], one["status"]) == (
            "Refunds arrive within five business days", ns, "SEMANTIC", "ACTIVE")
        assert one["sources"] == ["ops-test"]
        assert one["metadata"] == [{"key": "channel", "value": "chat"}]
        assert {(e["sourceId"], e["type"]) for e in one["relations"]} == {(card, "RELATES_TO"), (asked, "SUPPORTS")}

        page = (await run("Memories", namespace=ns, first=2))["memories"]
        assert len(page["items"]) == 2
        assert page["nextCursor"]
        rest = (await run("Memories", namespace=ns, first=2, after=page["nextCursor"]))["memories"]
        assert len(rest["items"]) == 1
        assert rest["nextCursor"] is None
        assert {m["id"] for m in page["items"] + rest["items"]} == {refund, asked, card}

        around = (await run("Neighborhood", namespace=ns, id=refund, hops=1))["neighborhood"]
        nodes = {n["id"]: n for n in around["nodes"]}
        assert around["center"] == nodes[refund]["key"]
        assert {card, asked, "refund policy", task["id"]} <= set(nodes)
        assert {"RELATES_TO", "SUPPORTS", "ABOUT"} <= {e["type"] for e in around["edges"]}
        keys = {n["key"] for n in around["nodes"]}
        assert all(e["source"] in keys and e["target"] in keys for e in around["edges"])

        log = (await run("Task", namespace=ns, id=task["id"]))["task"]
        assert [t["content"] for t in log["turns"]] == ["When does my refund arrive?", "Within five business days."]
        assert [m["id"] for m in log["memories"]] == [refund]
        assert log["summary"] is None  # not reflected yet, and this server writes no extractive summaries

        entities = (await run("Entities", namespace=ns))["entities"]
        assert {"name": "refund policy", "kind": "unknown", "memories": 2} in entities  # named by the caller
        assert all(e["kind"] != "unknown" for e in entities if e["name"] != "refund policy")  # found in content

        stats = (await run("Stats", namespace=ns))["stats"]
        assert {c["key"]: c["n"] for c in stats["memories"]} == {"semantic/active": 2, "episodic/active": 1}
        assert {c["key"]: c["n"] for c in stats["nodes"]} == {"Task": 1, "Turn": 2, "Entity": len(entities)}
        edges = {c["key"]: c["n"] for c in stats["edges"]}
        assert (edges["RELATES_TO"], edges["SUPPORTS"], edges["ABOUT"]) == (1, 1, sum(e["memories"] for e in entities))

        # --- changes ---
        updated = (await run("UpdateMemory", namespace=ns, id=asked,
                             content="The customer asked twice when the refund arrives", tags=["Follow-Up"],
                             confidence=0.8))["updateMemory"]
        assert (updated["id"], updated["content"], updated["tags"], updated["confidence"]) == (
            asked, "The customer asked twice when the refund arrives", ["follow-up"], 0.8)
        assert (await run("Memory", id=asked, namespace=ns))["memory"]["content"] == updated["content"]

        assert (await run("Unrelate", namespace=ns, sourceId=card, targetId=refund, type="RELATES_TO"))["unrelate"]
        assert not (await run("Unrelate", namespace=ns, sourceId=card, targetId=refund,
                              type="RELATES_TO"))["unrelate"]

        assert (await run("DeleteMemories", namespace=ns, ids=[card]))["deleteMemories"] == [card]
        live = (await run("Memories", namespace=ns))["memories"]["items"]
        assert card not in {m["id"] for m in live}
        deleted = (await run("Memories", namespace=ns, statuses=["DELETED"]))["memories"]["items"]
        assert [m["id"] for m in deleted] == [card]
        assert (await run("RestoreMemories", namespace=ns, ids=[card]))["restoreMemories"] == [card]
        assert card in {m["id"] for m in (await run("Memories", namespace=ns))["memories"]["items"]}

        ended = (await run("EndTask", namespace=ns, id=task["id"], outcome="answered"))["endTask"]
        assert (ended["status"], ended["outcome"]) == ("ended", "answered")
        assert ended["endedAt"] is not None
        assert (await run("Task", namespace=ns, id=task["id"]))["task"]["status"] == "ended"
        assert ended["reflection"]["status"] == "pending"  # queued for the worker
        # the real local model (slow on 2 cores: about a minute)
        report = (await run("Reflect", namespace=ns, taskId=task["id"]))["reflect"]
        assert report["facts"]
        assert report["llmCalls"] >= 1
        assert report["replayed"] is False
        assert (await run("Reflect", namespace=ns, taskId=task["id"]))["reflect"] == {**report, "replayed": True}
        summary = (await run("Task", namespace=ns, id=task["id"]))["task"]["summary"]
        assert report["summary"] is not None  # written with the facts, in the same call
        assert summary is not None
        assert (summary["id"], summary["content"], summary["source"]) == (
            report["summary"]["id"], report["summary"]["content"], "summary:reflection")
        async with httpx.AsyncClient() as plain:
            metrics = (await plain.get(served.url.replace("/graphql", "/metrics"))).text
        assert 'graphmem_reflections_total{outcome="ok"} 1.0' in metrics
        assert 'graphmem_reflections_total{outcome="replayed"} 1.0' in metrics
        assert f"graphmem_llm_calls_total {float(report['llmCalls'])}" in metrics

        # Expected failures reach the client with their code.
        with pytest.raises(TransportQueryError) as failure:
            await run("Memory", id="no-such-memory")
        assert failure.value.errors is not None
        assert failure.value.errors[0]["extensions"]["code"] == "NOT_FOUND"

    assert {p.stem for p in OPERATIONS.glob("*.graphql")} == set(run.ran), "an example operation was not run"
