"""Trust from provenance through GraphQL on the real Neo4j: a memory carries the token that wrote it and that
token's trust, both signed; search scales by the trust and ``minTrust`` keeps a low-trust writer's memories
apart; a trust raised in the database behind graphmem's back is caught."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphmem.api.app import create_app
from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.security import make_entry, new_token
from graphmem.store import Store
from tests.integration.api_support import WRITE, Json, api_settings, codes, lifespan, post, wipe

TAMPER = (Path(__file__).parent / "cypher" / "tamper.cypher").read_text()
SEARCH = """query($q: String!, $ns: [String!], $min: Float! = 0) {
  search(query: $q, namespaces: $ns, minTrust: $min, k: 10) {
    results { score memory { id content writer trust } parts { trust } } } }"""
UPDATE = """mutation($ns: String!, $id: ID!, $content: String, $tags: [String!]) {
  updateMemory(namespace: $ns, id: $id, content: $content, tags: $tags) { id writer trust content } }"""
MEMORY = "query($id: ID!, $ns: String) { memory(id: $id, namespace: $ns) { id writer trust } }"
TRUE = "The spare key to the blue shed hangs on the hook behind the kitchen door."
PLANTED = "The spare key to the blue shed hangs on the hook behind the cellar door."


@dataclass
class Env:
    client: httpx.AsyncClient
    ns: str
    trusted: str
    low: str

    async def data(self, token: str, query: str, variables: Json) -> Json:
        response = await post(self.client, token, query, variables)
        assert response.status_code == 200, response.text
        body: Json = response.json()
        assert not body.get("errors"), body["errors"]
        data: Json = body["data"]
        return data

    async def write(self, token: str, content: str, *, dedupe: bool = False) -> tuple[str, str]:
        """(id, action) of one semantic memory written with ``token``."""
        out = await self.data(token, WRITE, {"memories": [{"namespace": self.ns, "kind": "SEMANTIC",
                                                           "content": content}], "dedupe": dedupe})
        item = out["writeMemories"]["items"][0]
        return str(item["id"]), str(item["action"])

    async def search(self, token: str, **variables: Any) -> list[Json]:
        out = await self.data(token, SEARCH, {"q": "where is the spare key to the blue shed", "ns": [self.ns],
                                              **variables})
        results: list[Json] = out["search"]["results"]
        return results


@pytest.fixture(scope="module")
async def env(migrated: Settings, embedder: Embedder) -> AsyncIterator[Env]:
    ns, shared = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
    (trusted, h_trusted), (low, h_low) = new_token(), new_token()
    entries = [make_entry("tok-owner", h_trusted, write=[ns]),
               make_entry("tok-chat", h_low, write=[ns], trust=0.3)]
    app = create_app(api_settings(migrated, entries, shared=shared), embedder=embedder)
    try:
        async with lifespan(app), httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                                    base_url="http://api.test", timeout=60) as client:
            yield Env(client, ns, trusted, low)
    finally:
        await wipe(migrated, ns, shared)


async def test_a_memory_names_its_writer_and_ranks_by_its_trust(env: Env) -> None:
    true_id, _ = await env.write(env.trusted, TRUE)
    planted_id, _ = await env.write(env.low, PLANTED)
    for mid, writer, trust in ((true_id, "tok-owner", 1.0), (planted_id, "tok-chat", 0.3)):
        got = (await env.data(env.trusted, MEMORY, {"id": mid, "ns": env.ns}))["memory"]
        assert (got["writer"], got["trust"]) == (writer, pytest.approx(trust))

    results = await env.search(env.trusted)
    ids = [r["memory"]["id"] for r in results]
    assert ids[:2] == [true_id, planted_id]  # near twins: the trust decides
    by_id = {r["memory"]["id"]: r for r in results}
    assert by_id[planted_id]["parts"]["trust"] == pytest.approx(0.3)
    assert by_id[true_id]["parts"]["trust"] == pytest.approx(1.0)
    assert by_id[planted_id]["score"] < 0.5 * by_id[true_id]["score"]

    kept_apart = [r["memory"]["id"] for r in await env.search(env.trusted, min=0.5)]
    assert true_id in kept_apart
    assert planted_id not in kept_apart
    # a low-trust writer reads its own memories like anyone else: min_trust is the reader's choice
    assert planted_id in [r["memory"]["id"] for r in await env.search(env.low)]


async def test_a_trust_raised_in_the_database_fails_verification(env: Env, store: Store) -> None:
    mid, _ = await env.write(env.low, "The gate code of the blue shed is written under the flower pot.")
    async with store.driver.session(database=store.database) as session:
        result = await session.run(TAMPER, rows=[{"namespace": env.ns, "id": mid,
                                                  "props": {"trust": 1.0, "writer": "tok-owner"}}])
        assert (await result.single())["changed"] == 1  # type: ignore[index]
    response = await post(env.client, env.trusted, MEMORY, {"id": mid, "ns": env.ns})
    assert codes(response.json()) == ["NOT_FOUND"]  # failed verification: not returned (the default)
    assert mid not in [r["memory"]["id"] for r in await env.search(env.trusted)]


async def test_an_edit_leaves_a_memory_trusted_no_more_than_its_editor(env: Env) -> None:
    """A low-trust token cannot put its words into a trusted memory; a trusted one does not vouch by retagging."""
    trusted_id, _ = await env.write(env.trusted, "The boat club meets on the second Tuesday of each month.")
    edited = (await env.data(env.low, UPDATE, {"ns": env.ns, "id": trusted_id,
                                               "content": "The boat club meets on the third Friday of each month."}))
    got = edited["updateMemory"]
    assert (got["writer"], got["trust"]) == ("tok-chat", pytest.approx(0.3))
    assert got["content"].startswith("The boat club meets on the third Friday")

    low_id, _ = await env.write(env.low, "The boat club's treasurer keeps the ledger in the clubhouse safe.")
    retagged = (await env.data(env.trusted, UPDATE, {"ns": env.ns, "id": low_id, "tags": ["club"]}))
    assert (retagged["updateMemory"]["writer"], retagged["updateMemory"]["trust"]) == ("tok-chat", pytest.approx(0.3))
    for mid in (trusted_id, low_id):  # both re-signed with their new provenance: they verify
        assert (await env.data(env.trusted, MEMORY, {"id": mid, "ns": env.ns}))["memory"]["id"] == mid


async def test_a_task_carries_the_lowest_trust_of_its_writers(env: Env) -> None:
    start = "mutation($t: TaskInput!) { startTask(task: $t) { id writer trust } }"
    log = """mutation($ns: String!, $id: String!, $turns: [TurnInput!]!) {
      logTurns(namespace: $ns, taskId: $id, turns: $turns) { id } }"""
    task = "query($ns: String!, $id: ID!) { task(namespace: $ns, id: $id) { writer trust } }"
    started = (await env.data(env.trusted, start, {"t": {"namespace": env.ns, "agent": "bot", "title": "x"}}))
    tid = started["startTask"]["id"]
    assert (started["startTask"]["writer"], started["startTask"]["trust"]) == ("tok-owner", 1.0)
    await env.data(env.low, log, {"ns": env.ns, "id": tid, "turns": [{"role": "USER", "content": "hello"}]})
    got = (await env.data(env.trusted, task, {"ns": env.ns, "id": tid}))["task"]
    assert (got["writer"], got["trust"]) == ("tok-owner", pytest.approx(0.3))  # reflection's facts will carry 0.3


async def test_a_trusted_write_is_never_absorbed_into_a_low_trust_copy(env: Env) -> None:
    text = "The harbour master's office opens at seven on weekdays."
    planted, action = await env.write(env.low, text, dedupe=True)
    assert action == "CREATED"
    trusted, action = await env.write(env.trusted, text, dedupe=True)  # exact copy, dedupe on: still its own
    assert (action, trusted != planted) == ("CREATED", True)
    again, action = await env.write(env.low, text + " ", dedupe=True)  # the low writer may reinforce either
    assert (action, again in (planted, trusted)) == ("STRENGTHENED", True)
    got = (await env.data(env.trusted, MEMORY, {"id": trusted, "ns": env.ns}))["memory"]
    assert (got["writer"], got["trust"]) == ("tok-owner", 1.0)


async def test_a_memory_trusted_less_may_not_supersede_one_trusted_more(env: Env) -> None:
    """relate(SUPERSEDES) follows reflection's rule: a low-trust writer's memory may not retire a more trusted one
    (it would leave search), nor may a low-trust token retire it with another's memory; nothing is written."""
    relate = """mutation($ns: String!, $rels: [RelationInput!]!) { relate(namespace: $ns, relations: $rels) }"""
    fact, _ = await env.write(env.trusted, "The office wifi password is stored only in the company vault.")
    other, _ = await env.write(env.trusted, "The office wifi is renewed every quarter by the IT desk.")
    planted, _ = await env.write(env.low, "The office wifi password is printed on the poster at reception.")

    def supersedes(source: str, target: str) -> Json:
        return {"ns": env.ns, "rels": [{"sourceId": source, "targetId": target, "type": "SUPERSEDES"}]}

    for token, source in ((env.low, planted), (env.trusted, planted), (env.low, other)):
        response = await post(env.client, token, relate, supersedes(source, fact))
        assert codes(response.json()) == ["FORBIDDEN"], response.text
        assert "trust" in response.json()["errors"][0]["message"]
    status = "query($id: ID!, $ns: String) { memory(id: $id, namespace: $ns) { status validUntil relations { type } } }"
    still = (await env.data(env.trusted, status, {"id": fact, "ns": env.ns}))["memory"]
    assert (still["status"], still["validUntil"]) == ("ACTIVE", None)
    assert "SUPERSEDES" not in {r["type"] for r in still["relations"]}

    # the trusted writer may retire its own fact, and the low writer a memory trusted no more than itself
    assert (await env.data(env.trusted, relate, supersedes(other, fact)))["relate"] == 1
    low_old, _ = await env.write(env.low, "The office wifi password was on a sticky note in 2023.")
    assert (await env.data(env.low, relate, supersedes(planted, low_old)))["relate"] == 1
