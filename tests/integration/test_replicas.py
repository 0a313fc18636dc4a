"""Several API replicas on one Neo4j (docs/deploy.md): two real `graphmem serve` processes share nothing but the
database, and a write through one is seen by the next search through the other, cached or not; two reflection
workers, each with its own connection, reflect every queued task once. The LLM of the workers is a fake
OpenAI-compatible server over real HTTP (what is tested is the claim, not the model)."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.llm import LLMClient
from graphmem.models import Role, Task
from graphmem.neo4j_local.tools import free_port
from graphmem.reflection import ReflectionService
from graphmem.reflection.worker import ReflectionWorker
from graphmem.security import add_token_entry, make_entry, new_token
from graphmem.service import MemoryService
from graphmem.store import Store
from tests.integration.serve_support import serve_env, start, stop, wait_ready

WRITE = """mutation($ns: String!, $content: String!) {
  writeMemories(memories: [{namespace: $ns, kind: SEMANTIC, content: $content}]) { items { id action } } }"""
SEARCH = """query($ns: String!, $q: String!) {
  search(query: $q, namespaces: [$ns], k: 10) { cached results { memory { id content } } } }"""
QUESTION = "Which city does the user's sister live in?"


@pytest.fixture
def replicas(migrated: Settings, tmp_path: Path, namespace: str) -> Iterator[tuple[str, str, str]]:
    """Two `graphmem serve` processes on the session's Neo4j, one token for ``namespace``: (url A, url B, token)."""
    token, sha = new_token()
    tokens = tmp_path / "tokens.yaml"
    add_token_entry(tokens, make_entry("replicas", sha, read=[namespace], write=[namespace]))
    ports = [free_port(), free_port()]
    procs = [start(["graphmem", "serve"], serve_env(migrated, tokens, port), tmp_path / f"serve-{port}.log")
             for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for proc, url, port in zip(procs, urls, ports, strict=True):
            wait_ready(proc, url, tmp_path / f"serve-{port}.log", timeout_s=180)
        yield urls[0], urls[1], token
    finally:
        stop(procs)


async def _gql(client: httpx.AsyncClient, url: str, token: str, query: str, **variables: Any) -> dict[str, Any]:
    response = await client.post(f"{url}/graphql", json={"query": query, "variables": variables},
                                 headers={"Authorization": f"Bearer {token}"}, timeout=60)
    body = response.json()
    assert response.status_code == 200, body
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


async def test_a_write_through_one_replica_is_seen_by_the_cached_search_of_the_other(
        replicas: tuple[str, str, str], namespace: str) -> None:
    a, b, token = replicas
    async with httpx.AsyncClient() as client:
        await _gql(client, a, token, WRITE, ns=namespace, content="The user's sister Anna lives in Lisbon.")
        first = (await _gql(client, b, token, SEARCH, ns=namespace, q=QUESTION))["search"]
        again = (await _gql(client, b, token, SEARCH, ns=namespace, q=QUESTION))["search"]
        assert [r["memory"]["id"] for r in again["results"]] == [r["memory"]["id"] for r in first["results"]]
        assert again["cached"], "replica B did not cache the search: the test would prove nothing"

        written = (await _gql(client, a, token, WRITE, ns=namespace,
                              content="The user's sister Anna moved to Porto in May."))["writeMemories"]
        new_id = written["items"][0]["id"]
        after = (await _gql(client, b, token, SEARCH, ns=namespace, q=QUESTION))["search"]
        assert not after["cached"], "replica B served its cached result after replica A wrote to the namespace"
        assert new_id in [r["memory"]["id"] for r in after["results"]]

        # and the other way round, for an update: B's write invalidates A's cache
        await _gql(client, a, token, SEARCH, ns=namespace, q=QUESTION)
        assert (await _gql(client, a, token, SEARCH, ns=namespace, q=QUESTION))["search"]["cached"]
        await _gql(client, b, token, """mutation($ns: String!, $id: ID!) {
            updateMemory(namespace: $ns, id: $id, content: "The user's sister Anna moved to Faro in June.") { id } }""",
                   ns=namespace, id=new_id)
        updated = (await _gql(client, a, token, SEARCH, ns=namespace, q=QUESTION))["search"]
        assert not updated["cached"]
        assert "Faro" in {r["memory"]["id"]: r["memory"]["content"] for r in updated["results"]}[new_id]


# --- two reflection workers -----------------------------------------------------------------------------------
TITLE = re.compile(r"Task: (replica task \d+)")


class FakeLLM:
    """An OpenAI-compatible chat endpoint that answers every reflection with one valid fact about the task it
    was asked about (after ``delay_s``, so that two workers overlap), counting the requests per task title."""

    def __init__(self, delay_s: float = 0.2) -> None:
        self.delay_s = delay_s
        self.asked: Counter[str] = Counter()
        self.app = Starlette(routes=[Route("/v1/chat/completions", self.complete, methods=["POST"])])

    async def complete(self, request: Request) -> JSONResponse:
        body = await request.json()
        found = TITLE.search(body["messages"][-1]["content"])
        title = found.group(1) if found else "unknown"
        self.asked[title] += 1
        await asyncio.sleep(self.delay_s)
        content = json.dumps({"facts": [{"content": f"The user finished {title}.", "kind": "episodic",
                                         "entities": [], "turns": [0], "replaces": "none", "confidence": 0.9}],
                              "relations": [], "errors": [], "improvements": []})
        return JSONResponse({
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140}})


@pytest.fixture
def fake_llm() -> Iterator[tuple[FakeLLM, str]]:
    """The fake LLM on a free port, served by uvicorn in a thread: (the fake, its base URL)."""
    fake, port = FakeLLM(), free_port()
    server = uvicorn.Server(uvicorn.Config(fake.app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the fake LLM server did not start")
        time.sleep(0.05)
    try:
        yield fake, f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@asynccontextmanager
async def _worker(settings: Settings, embedder: Embedder, namespace: str) -> AsyncIterator[ReflectionWorker]:
    """A reflection worker as a replica runs it: its own driver, services and LLM client."""
    async with Store.connect(settings) as store:
        llm = LLMClient(settings, max_retries=0)
        try:
            yield ReflectionWorker(ReflectionService(MemoryService(store, embedder, settings), llm),
                                   namespaces=[namespace])
        finally:
            await llm.close()


async def test_two_reflection_workers_reflect_each_task_once(
        migrated: Settings, embedder: Embedder, namespace: str, fake_llm: tuple[FakeLLM, str]) -> None:
    fake, url = fake_llm
    settings = migrated.model_copy(update={"llm_base_url": url, "reflection_batch_size": 3,
                                           "reflection_related": 0})
    async with Store.connect(settings) as store:
        tasks = MemoryService(store, embedder, settings).tasks
        titles = [f"replica task {i}" for i in range(8)]
        for title in titles:
            task = await tasks.start(Task(namespace=namespace, title=title))
            await tasks.log_turns(namespace, task.id, [(Role.USER, f"Please close {title} for the audit."),
                                                       (Role.ASSISTANT, "Closed.")])
            await tasks.end(namespace, task.id)
    async with AsyncExitStack() as stack:
        workers = [await stack.enter_async_context(_worker(settings, embedder, namespace)) for _ in range(2)]

        async def drain(worker: ReflectionWorker) -> int:
            """Run batches until no task is queued (a claim that lost every task to the other worker gets none)."""
            done = 0
            while True:
                reflected = await worker.run_once(force=True)
                done += reflected
                if not reflected:
                    (queue,) = await worker.store.read("reflection/pending", namespaces=[namespace])
                    if not queue["pending"]:
                        return done
                    await asyncio.sleep(0.05)

        done = await asyncio.gather(*(drain(w) for w in workers))
    assert sum(done) == len(titles), f"the workers reflected {done} tasks, not {len(titles)}"
    assert all(done), f"one worker took every task ({done}): the claims did not overlap"
    assert dict(fake.asked) == dict.fromkeys(titles, 1), "a task was reflected twice (or not at all)"
    assert all(w.stats.failed == 0 for w in workers), [w.stats.last_error for w in workers]
