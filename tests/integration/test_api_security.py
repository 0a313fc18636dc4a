"""Namespace isolation through the API: token A never sees or changes B's data; the shared layer; read-only."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from graphmem.api.schema import schema
from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import WRITE, Api, Json, codes, open_api

MEMORY_FIELDS = "id namespace content tags relations { sourceId targetId type }"
TASK_FIELDS = f"id namespace title turns {{ id content }} memories {{ {MEMORY_FIELDS} }}"
SEARCH = f"""query($q: String!, $ns: [String!]) {{ search(query: $q, namespaces: $ns, hops: 2) {{
    results {{ memory {{ {MEMORY_FIELDS} }} path {{ sourceId targetId type }} }} }} }}"""
MEMORY = f"query($id: ID!, $ns: String) {{ memory(id: $id, namespace: $ns) {{ {MEMORY_FIELDS} }} }}"
MEMORIES = f"""query($ns: String!) {{ memories(namespace: $ns, statuses: [ACTIVE, SUPERSEDED, ARCHIVED, DELETED]) {{
    items {{ {MEMORY_FIELDS} }} nextCursor }} }}"""
NEIGHBORHOOD = """query($ns: String!, $id: ID!) { neighborhood(namespace: $ns, id: $id, hops: 3) {
    center nodes { key id label content } edges { source target type } } }"""
TASK = f"query($ns: String!, $id: ID!) {{ task(namespace: $ns, id: $id) {{ {TASK_FIELDS} }} }}"
ENTITIES = "query($ns: String!) { entities(namespace: $ns) { name kind memories } }"
STATS = "query($ns: String!) { stats(namespace: $ns) { namespace memories { key n } edges { key n } nodes { key n } } }"


@pytest.fixture(scope="module")
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    async with open_api(migrated, embedder) as env:
        yield env


def probes(api: Api) -> dict[str, list[tuple[str, Json]]]:
    """For every Query field, the ways token A can ask about B: B's namespace, B's ids under A's namespace, and
    B's own words as a search."""
    b0, b1, task = api.b.memory_ids[0], api.b.memory_ids[1], api.b.task_id
    a, b = api.ns_a, api.ns_b
    words = f"vault code of {api.b.markers[0]} {api.b.markers[1]}"
    return {
        "search": [(SEARCH, {"q": words, "ns": [b]}), (SEARCH, {"q": words, "ns": [a, b]}),
                   (SEARCH, {"q": words, "ns": None}), (SEARCH, {"q": words, "ns": [a]}),
                   (SEARCH, {"q": words, "ns": [api.shared]})],
        "memory": [(MEMORY, {"id": b0}), (MEMORY, {"id": b0, "ns": b}), (MEMORY, {"id": b1, "ns": a}),
                   (MEMORY, {"id": task}), (MEMORY, {"id": b0, "ns": api.shared})],
        "memories": [(MEMORIES, {"ns": b})],
        "neighborhood": [(NEIGHBORHOOD, {"ns": b, "id": b0}), (NEIGHBORHOOD, {"ns": a, "id": b0}),
                         (NEIGHBORHOOD, {"ns": a, "id": b1})],
        "task": [(TASK, {"ns": b, "id": task}), (TASK, {"ns": a, "id": task})],
        "entities": [(ENTITIES, {"ns": b})],
        "stats": [(STATS, {"ns": b})],
    }


def leaked(api: Api, text: str) -> list[str]:
    return [m for m in api.b.markers if m.lower() in text.lower()]


async def test_b_sees_its_own_data_through_the_same_fields(api: Api) -> None:
    """The control: the probes below would show B's markers to a token allowed to read B."""
    b0, task, b = api.b.memory_ids[0], api.b.task_id, api.ns_b
    seen: set[str] = set()
    for query, variables in [(SEARCH, {"q": f"vault code of {api.b.markers[0]}", "ns": [b]}),
                             (MEMORY, {"id": b0}), (MEMORIES, {"ns": b}), (NEIGHBORHOOD, {"ns": b, "id": b0}),
                             (TASK, {"ns": b, "id": task}), (ENTITIES, {"ns": b})]:
        response = await api.client.post("/graphql", json={"query": query, "variables": variables},
                                         headers={"Authorization": f"Bearer {api.tokens.b}"})
        assert not response.json().get("errors"), response.text
        seen.update(leaked(api, response.text))
    assert seen == set(api.b.markers)
    stats = await api.data(api.tokens.b, STATS, {"ns": b})
    assert {c["key"]: c["n"] for c in stats["stats"]["memories"]} == {"episodic/active": 1, "semantic/active": 1}


async def test_token_a_learns_nothing_of_b_from_any_query_field(api: Api) -> None:
    planned = probes(api)
    query_type = schema._schema.query_type
    assert query_type is not None
    assert set(planned) == set(query_type.fields), "a Query field has no isolation probe"
    for field, cases in planned.items():
        for query, variables in cases:
            response = await api.client.post("/graphql", json={"query": query, "variables": variables},
                                             headers={"Authorization": f"Bearer {api.tokens.a}"})
            where = f"{field}({variables})"
            assert response.status_code == 200, where
            assert leaked(api, response.text) == [], f"{where} showed B's data: {response.text[:500]}"
            body = response.json()
            if body.get("errors"):
                assert set(codes(body)) <= {"FORBIDDEN", "NOT_FOUND"}, f"{where}: {body['errors']}"
                assert body["data"] is None, where
            else:  # only a search over A's own namespaces answers, and with nothing of B
                assert field == "search", f"{where} answered: {body}"
                found = {r["memory"]["namespace"] for r in body["data"]["search"]["results"]}
                assert api.ns_b not in found, where


async def test_token_a_cannot_change_b(api: Api) -> None:
    a, b = api.ns_a, api.ns_b
    b0, b1, task = api.b.memory_ids[0], api.b.memory_ids[1], api.b.task_id
    attempts: list[tuple[str, Json, set[str]]] = [
        ("mutation($ns: String!, $id: ID!) { updateMemory(namespace: $ns, id: $id, content: \"mine now\") { id } }",
         {"ns": a, "id": b0}, {"NOT_FOUND"}),
        ("mutation($ns: String!, $id: ID!) { updateMemory(namespace: $ns, id: $id, content: \"mine now\") { id } }",
         {"ns": b, "id": b0}, {"FORBIDDEN"}),
        ("mutation($ns: String!, $ids: [ID!]!) { deleteMemories(namespace: $ns, ids: $ids) }",
         {"ns": b, "ids": [b0]}, {"FORBIDDEN"}),
        ("mutation($ns: String!, $r: [RelationInput!]!) { relate(namespace: $ns, relations: $r) }",
         {"ns": a, "r": [{"sourceId": b1, "targetId": b0, "type": "CONTRADICTS"}]}, {"INVALID_INPUT"}),
        ("mutation($ns: String!, $s: String!, $t: String!) { unrelate(namespace: $ns, sourceId: $s, targetId: $t,"
         " type: SUPPORTS) }", {"ns": b, "s": b0, "t": b1}, {"FORBIDDEN"}),
        ("mutation($ns: String!, $id: String!) { logTurns(namespace: $ns, taskId: $id, turns: [{role: USER, "
         "content: \"injected\"}]) { id } }", {"ns": a, "id": task}, {"NOT_FOUND"}),
        ("mutation($ns: String!, $id: ID!) { endTask(namespace: $ns, id: $id, outcome: \"hijacked\") { id } }",
         {"ns": a, "id": task}, {"NOT_FOUND"}),
        ("mutation($ns: String!, $id: ID!) { endTask(namespace: $ns, id: $id) { id } }",
         {"ns": b, "id": task}, {"FORBIDDEN"}),
        (WRITE, {"memories": [{"namespace": a, "kind": "SEMANTIC", "content": "derived", "derivedFrom": [b0]}]},
         {"INVALID_INPUT"}),
        (WRITE, {"memories": [{"namespace": a, "kind": "SEMANTIC", "content": "joined", "taskId": task}]},
         {"INVALID_INPUT"}),
        (WRITE, {"memories": [{"namespace": b, "kind": "SEMANTIC", "content": "planted"}]}, {"FORBIDDEN"}),
    ]
    for query, variables, expected in attempts:
        body = await api.call(api.tokens.a, query, variables)
        assert set(codes(body)) == expected, f"{query[:60]} {variables}: {body}"
        assert leaked(api, str(body)) == []
    # Where A names its own namespace, B's ids simply match nothing.
    assert (await api.data(api.tokens.a, "mutation($ns: String!, $ids: [ID!]!) { deleteMemories(namespace: $ns, "
                                         "ids: $ids) }", {"ns": a, "ids": [b0, b1]}))["deleteMemories"] == []
    assert (await api.data(api.tokens.a, "mutation($ns: String!, $s: String!, $t: String!) { unrelate(namespace: "
                                         "$ns, sourceId: $s, targetId: $t, type: SUPPORTS) }",
                           {"ns": a, "s": b0, "t": b1}))["unrelate"] is False
    # B's data is as it was.
    mine = await api.data(api.tokens.b, MEMORY, {"id": b0})
    assert api.b.markers[0] in mine["memory"]["content"]
    assert mine["memory"]["relations"] == [{"sourceId": b0, "targetId": b1, "type": "SUPPORTS"}]
    task_now = await api.data(api.tokens.b, "query($ns: String!, $id: ID!) { task(namespace: $ns, id: $id) { "
                                            "status outcome turns { content } } }", {"ns": b, "id": task})
    assert task_now["task"]["status"] == "open"
    assert task_now["task"]["outcome"] is None
    assert len(task_now["task"]["turns"]) == 1
    stats = await api.data(api.tokens.b, STATS, {"ns": b})
    assert sum(c["n"] for c in stats["stats"]["memories"]) == 2


async def test_search_without_namespaces_merges_own_and_shared(api: Api) -> None:
    mark = uuid.uuid4().hex[:8]
    shared = await api.data(api.tokens.admin, WRITE, {"memories": [
        {"namespace": api.shared, "kind": "SEMANTIC", "content": f"Team-wide rule {mark}: deploys freeze on Fridays"}]})
    own = await api.data(api.tokens.a, WRITE, {"memories": [
        {"namespace": api.ns_a, "kind": "SEMANTIC", "content": f"My rule {mark}: deploys need two reviews"}]})
    shared_id = shared["writeMemories"]["items"][0]["id"]
    own_id = own["writeMemories"]["items"][0]["id"]
    forbidden = await api.call(api.tokens.a, WRITE, {"memories": [
        {"namespace": api.shared, "kind": "SEMANTIC", "content": "A may only read the shared layer"}]})
    assert codes(forbidden) == ["FORBIDDEN"]

    found = await api.data(api.tokens.a, SEARCH, {"q": f"deploy rule {mark}", "ns": None})
    results = found["search"]["results"]
    by_id = {r["memory"]["id"]: r["memory"]["namespace"] for r in results}
    assert by_id.get(own_id) == api.ns_a
    assert by_id.get(shared_id) == api.shared
    assert set(by_id.values()) <= {api.ns_a, api.shared}
    assert leaked(api, str(found)) == []
    # Through the shared layer B sees the team rule, never A's own.
    from_b = await api.data(api.tokens.b, SEARCH, {"q": f"deploy rule {mark}", "ns": None})
    b_ids = {r["memory"]["id"] for r in from_b["search"]["results"]}
    assert shared_id in b_ids
    assert own_id not in b_ids
    # The shared memory is readable by id; A's is not readable by B.
    assert (await api.data(api.tokens.b, MEMORY, {"id": shared_id}))["memory"]["namespace"] == api.shared
    assert codes(await api.call(api.tokens.b, MEMORY, {"id": own_id})) == ["NOT_FOUND"]


async def test_read_only_token_reads_but_cannot_write(api: Api) -> None:
    ro, a = api.tokens.a_read_only, api.ns_a
    before = await api.data(ro, STATS, {"ns": a})
    attempts: list[tuple[str, Json]] = [
        (WRITE, {"memories": [{"namespace": a, "kind": "SEMANTIC", "content": "read-only tries to write"}]}),
        ("mutation($t: TaskInput!) { startTask(task: $t) { id } }", {"t": {"namespace": a, "title": "nope"}}),
        ("mutation($ns: String!) { deleteMemories(namespace: $ns, ids: [\"x\"]) }", {"ns": a}),
        ("mutation($ns: String!) { restoreMemories(namespace: $ns, ids: [\"x\"]) }", {"ns": a}),
        ("mutation($ns: String!) { updateMemory(namespace: $ns, id: \"x\", content: \"y\") { id } }", {"ns": a}),
        ("mutation($ns: String!) { relate(namespace: $ns, relations: [{sourceId: \"x\", targetId: \"y\", "
         "type: CAUSES}]) }", {"ns": a}),
        ("mutation($ns: String!) { unrelate(namespace: $ns, sourceId: \"x\", targetId: \"y\", type: CAUSES) }",
         {"ns": a}),
        ("mutation($ns: String!) { logTurns(namespace: $ns, taskId: \"x\", turns: [{role: USER, content: \"y\"}]) "
         "{ id } }", {"ns": a}),
        ("mutation($ns: String!) { endTask(namespace: $ns, id: \"x\") { id } }", {"ns": a}),
    ]
    for query, variables in attempts:
        body = await api.call(ro, query, variables)
        assert codes(body) == ["FORBIDDEN"], f"{query[:50]}: {body}"
        assert body["data"] is None
        assert "may not write" in body["errors"][0]["message"]
    assert await api.data(ro, STATS, {"ns": a}) == before
    assert "search" in await api.data(ro, SEARCH, {"q": "anything at all", "ns": None})
