"""The GraphQL API over HTTP (the ASGI app with its lifespan, on the real Neo4j): auth, limits, error codes,
idempotency, request ids, health and metrics."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import pytest

from graphmem.api.schema import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS, schema
from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import WRITE, Api, codes, open_api, post

MAX_BODY = 64_000
STATS = "query StatsProbe($ns: String!) { stats(namespace: $ns) { namespace memories { key n } } }"
MEMORIES = "query($ns: String!) { memories(namespace: $ns, first: 200) { items { id content } } }"


@pytest.fixture(scope="module")
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    async with open_api(migrated, embedder, seed=False, api_max_body_bytes=MAX_BODY) as env:
        yield env


async def contents(api: Api, namespace: str) -> list[str]:
    data = await api.data(api.tokens.admin, MEMORIES, {"ns": namespace})
    return [m["content"] for m in data["memories"]["items"]]


def memory(ns: str, content: str, **kw: object) -> dict[str, object]:
    return {"namespace": ns, "kind": "SEMANTIC", "content": content, **kw}


# --- authentication -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("header", "message"), [
    (None, "missing bearer token"),
    ("Basic dXNlcjpwYXNz", "missing bearer token"),
    ("Bearer", "missing bearer token"),
    ("Bearer gm_not-a-token-anyone-holds", "invalid token"),
    ("Bearer " + "x" * 600, "invalid token"),
])
async def test_missing_or_wrong_token_is_401(api: Api, header: str | None, message: str) -> None:
    headers = {"Authorization": header} if header is not None else {}
    response = await api.client.post("/graphql", json={"query": STATS, "variables": {"ns": api.ns_a}},
                                     headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    body = response.json()
    assert "data" not in body
    assert codes(body) == ["UNAUTHENTICATED"]
    assert body["errors"][0]["message"].startswith(message)


async def test_graphiql_page_needs_no_token_but_gives_no_data(api: Api) -> None:
    page = await api.client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "graphiql" in page.text.lower()
    plain = await api.client.get("/graphql", params={"query": "{ __typename }"})
    assert plain.status_code == 401


# --- request ids, health, metrics -----------------------------------------------------------------------------


async def test_request_id_is_echoed_or_made(api: Api) -> None:
    given = await post(api.client, api.tokens.a, "{ stats(namespace: 5) }", headers={"X-Request-ID": "trace-42"})
    assert given.headers["x-request-id"] == "trace-42"
    assert given.json()["errors"][0]["extensions"]["requestId"] == "trace-42"
    made = await post(api.client, api.tokens.a, STATS, {"ns": api.ns_a})
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])
    too_long = await post(api.client, None, STATS, headers={"X-Request-ID": "r" * 65})
    assert too_long.status_code == 401
    assert re.fullmatch(r"[0-9a-f]{32}", too_long.headers["x-request-id"])
    assert too_long.json()["errors"][0]["extensions"]["requestId"] == too_long.headers["x-request-id"]
    health = await api.client.get("/healthz", headers={"X-Request-ID": "probe-1"})
    assert health.headers["x-request-id"] == "probe-1"


async def test_health_ready_and_metrics(api: Api) -> None:
    health = await api.client.get("/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    ready = await api.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "ready"
    assert isinstance(ready.json()["schema_version"], int)
    await api.data(api.tokens.a, STATS, {"ns": api.ns_a})
    await api.call(api.tokens.a, STATS, {"ns": api.ns_b})  # forbidden: counted as an error
    metrics = await api.client.get("/metrics")
    assert metrics.status_code == 200
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert re.search(r'^graphmem_graphql_operations_total\{operation="StatsProbe",outcome="ok"\} [1-9]', text, re.M)
    assert re.search(r'^graphmem_graphql_operations_total\{operation="StatsProbe",outcome="error"\} [1-9]', text,
                     re.M)
    assert re.search(r'^graphmem_http_requests_total\{path="/graphql",status="200"\} [1-9]', text, re.M)
    assert "graphmem_graphql_operation_seconds_bucket" in text


# --- limits -----------------------------------------------------------------------------------------------------


async def test_rate_limit_is_429_with_retry_after(migrated: Settings, embedder: Embedder) -> None:
    # One request back every 20 s: a slow machine cannot refill the bucket between the three requests.
    async with open_api(migrated, embedder, seed=False, rate_limit_per_s=0.05, rate_limit_burst=2) as tight:
        for _ in range(2):
            assert (await post(tight.client, tight.tokens.a, STATS, {"ns": tight.ns_a})).status_code == 200
        limited = await post(tight.client, tight.tokens.a, STATS, {"ns": tight.ns_a})
        assert limited.status_code == 429
        assert 1 <= int(limited.headers["retry-after"]) <= 21
        assert codes(limited.json()) == ["RATE_LIMITED"]
        assert limited.json()["errors"][0]["extensions"]["retryAfter"] == int(limited.headers["retry-after"])
        assert "data" not in limited.json()
        other = await post(tight.client, tight.tokens.b, STATS, {"ns": tight.ns_b})
        assert other.status_code == 200, "the bucket is per token"


async def test_each_root_field_of_an_operation_spends_one_request(migrated: Settings, embedder: Embedder) -> None:
    """Twenty aliased searches in one POST cost what twenty POSTs would (the guard takes one before the body is
    read; the parsed operation's further root fields take the rest)."""
    three = ("query($ns: String!) { a: stats(namespace: $ns) { namespace } b: stats(namespace: $ns) { namespace } "
             "...More } fragment More on Query { c: stats(namespace: $ns) { namespace } __typename }")
    async with open_api(migrated, embedder, seed=False, rate_limit_per_s=0.05, rate_limit_burst=5) as tight:
        assert (await post(tight.client, tight.tokens.a, three, {"ns": tight.ns_a})).status_code == 200  # 5 -> 2
        limited = await post(tight.client, tight.tokens.a, three, {"ns": tight.ns_a})  # the guard: 2 -> 1; 2 more
        assert limited.status_code == 429
        assert codes(limited.json()) == ["RATE_LIMITED"]
        assert "3 root fields" in limited.json()["errors"][0]["message"]
        assert limited.json()["errors"][0]["extensions"]["retryAfter"] == int(limited.headers["retry-after"])
        assert (await post(tight.client, tight.tokens.a, STATS, {"ns": tight.ns_a})).status_code == 200  # 1 -> 0
        assert (await post(tight.client, tight.tokens.a, STATS, {"ns": tight.ns_a})).status_code == 429


async def test_oversize_body_is_413_declared_or_streamed(api: Api) -> None:
    big = {"query": WRITE, "variables": {"memories": [memory(api.ns_a, "x" * 7000) for _ in range(10)]}}
    raw = json.dumps(big).encode()
    assert len(raw) > MAX_BODY
    headers = {"Authorization": f"Bearer {api.tokens.a}", "Content-Type": "application/json"}
    declared = await api.client.post("/graphql", content=raw, headers=headers)
    assert declared.status_code == 413
    assert codes(declared.json()) == ["INVALID_INPUT"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the guard counts what arrives
        for start in range(0, len(raw), 8192):
            yield raw[start:start + 8192]

    streamed = await api.client.post("/graphql", content=chunks(), headers=headers)
    assert "content-length" not in streamed.request.headers
    assert streamed.status_code == 413
    assert codes(streamed.json()) == ["INVALID_INPUT"]
    assert "x" * 7000 not in await contents(api, api.ns_a)


def schema_depth() -> float:
    """The deepest selection the schema allows (inf when object types nest in a cycle)."""
    gql_schema = schema._schema

    def depth(type_name: str, seen: frozenset[str]) -> float:
        if type_name in seen:
            return float("inf")
        fields = getattr(gql_schema.get_type(type_name), "fields", None)
        if not fields:
            return 0
        best = 0.0
        for f in fields.values():
            inner = f.type
            while hasattr(inner, "of_type"):
                inner = inner.of_type
            best = max(best, 1 + depth(inner.name, seen | {type_name}) if hasattr(inner, "fields") else 1)
        return best

    return max(depth("Query", frozenset()), depth("Mutation", frozenset()))


async def test_depth_limit_cannot_be_reached_the_deepest_query_runs(api: Api) -> None:
    # The schema is too flat to exceed MAX_DEPTH (fragment cycles are refused by validation, and introspection
    # fields are not counted), so aliases and tokens carry the limit tests below.
    assert schema_depth() < MAX_DEPTH, "the schema can nest past MAX_DEPTH now: test that a too-deep query fails"
    deepest = """query Deep { search(query: "anything", namespaces: [$ns]) {
        results { memory { relations { sourceId } } } } }""".replace("$ns", json.dumps(api.ns_a))
    assert (await api.data(api.tokens.a, deepest))["search"]["results"] == []
    cycle = """query Cycle { stats(namespace: "x") { ...A } }
               fragment A on Stats { namespace ...B }
               fragment B on Stats { ...A }"""
    body = await api.call(api.tokens.a, cycle)
    assert body["data"] is None
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "within itself" in body["errors"][0]["message"]


async def test_too_many_aliases_is_refused_before_anything_runs(api: Api) -> None:
    writes = " ".join(
        f'w{i}: writeMemories(memories: [{{namespace: "{api.ns_a}", kind: SEMANTIC, content: "alias {i}"}}]) '
        "{ replayed }" for i in range(MAX_ALIASES + 1))
    body = await api.call(api.tokens.a, f"mutation Many {{ {writes} }}")
    assert body["data"] is None
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert f"Allowed: {MAX_ALIASES}" in body["errors"][0]["message"]
    assert not [c for c in await contents(api, api.ns_a) if c.startswith("alias ")], "an aliased write ran"
    just_enough = " ".join(f"s{i}: stats(namespace: {json.dumps(api.ns_a)}) {{ namespace }}"
                           for i in range(MAX_ALIASES))
    assert len(await api.data(api.tokens.a, f"{{ {just_enough} }}")) == MAX_ALIASES


async def test_too_many_tokens_is_refused_before_anything_runs(api: Api) -> None:
    padding = " ".join(["replayed"] * MAX_TOKENS)
    query = (f'mutation Long {{ writeMemories(memories: [{{namespace: "{api.ns_a}", kind: SEMANTIC, '
             f'content: "token flood"}}]) {{ {padding} }} }}')
    body = await api.call(api.tokens.a, query)
    assert body["data"] is None
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert f"more than {MAX_TOKENS} tokens" in body["errors"][0]["message"]
    assert "token flood" not in await contents(api, api.ns_a)


# --- malformed and invalid requests -------------------------------------------------------------------------


async def test_malformed_query_and_unknown_field_fail_validation(api: Api) -> None:
    malformed = await api.call(api.tokens.a, 'query { search(query: "x" { results }')
    assert malformed["data"] is None
    assert codes(malformed) == ["GRAPHQL_VALIDATION_FAILED"]
    assert malformed["errors"][0]["message"].startswith("Syntax Error")
    unknown = await api.call(api.tokens.a, "query($ns: String!) { stats(namespace: $ns) { bogus } }", {"ns": "x"})
    assert unknown["data"] is None
    assert codes(unknown) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "Cannot query field 'bogus' on type 'Stats'" in unknown["errors"][0]["message"]
    not_json = await api.client.post("/graphql", content=b"{not json", headers={
        "Authorization": f"Bearer {api.tokens.a}", "Content-Type": "application/json"})
    assert not_json.status_code == 400


async def test_invalid_inputs_are_invalid_input_naming_the_item(api: Api) -> None:
    ns = api.ns_a
    blank = await api.call(api.tokens.a, WRITE, {"memories": [memory(ns, "fine"), memory(ns, "   ")]})
    assert codes(blank) == ["INVALID_INPUT"]
    assert blank["errors"][0]["message"].startswith("item 1: content:")
    assert "blank" in blank["errors"][0]["message"]

    bad_ns = await api.call(api.tokens.a, WRITE, {"memories": [memory("Not A Namespace!", "fine")]})
    assert codes(bad_ns) == ["INVALID_INPUT"]
    assert bad_ns["errors"][0]["message"].startswith("item 0: namespace:")

    start = "mutation($t: TaskInput!) { startTask(task: $t) { id } }"
    for blank_id, words in (("", "id: a task id is not blank"), ("  ", "id: a task id is not blank")):
        refused = await api.call(api.tokens.a, start, {"t": {"namespace": ns, "id": blank_id}})
        assert codes(refused) == ["INVALID_INPUT"]
        assert refused["errors"][0]["message"].startswith(words)  # one task, no item named
    agentless = await api.call(api.tokens.a, start, {"t": {"namespace": ns, "agent": ""}})
    assert agentless["errors"][0]["message"].startswith("agent: ")

    # JSON can carry NaN (Python's parser takes it); GraphQL's Float refuses it before any resolver runs.
    raw = json.dumps({"query": WRITE, "variables": {"memories": [
        memory(ns, "fine"), memory(ns, "nan confidence", confidence=float("nan"))]}})
    nan = await api.client.post("/graphql", content=raw, headers={
        "Authorization": f"Bearer {api.tokens.a}", "Content-Type": "application/json"})
    assert nan.status_code == 200
    assert codes(nan.json()) == ["INVALID_INPUT"], nan.text
    assert "[1].confidence" in nan.json()["errors"][0]["message"]

    huge = await api.call(api.tokens.a, WRITE, {"memories": [memory(ns, "over one", confidence=1.5)]})
    assert codes(huge) == ["INVALID_INPUT"]
    assert huge["errors"][0]["message"].startswith("item 0: confidence:")

    relate = "mutation($ns: String!, $r: [RelationInput!]!) { relate(namespace: $ns, relations: $r) }"
    bad_type = await api.call(api.tokens.a, relate, {"ns": ns, "r": [
        {"sourceId": "a", "targetId": "b", "type": "LIKES"}]})
    assert codes(bad_type) == ["INVALID_INPUT"], bad_type
    assert "[0].type" in bad_type["errors"][0]["message"]
    assert "LIKES" in bad_type["errors"][0]["message"]
    literal = await api.call(api.tokens.a, f'mutation {{ relate(namespace: "{ns}", relations: '
                                           '[{sourceId: "a", targetId: "b", type: LIKES}]) }')
    assert codes(literal) == ["GRAPHQL_VALIDATION_FAILED"]  # in the document itself: a validation error
    ghost = await api.call(api.tokens.a, relate, {"ns": ns, "r": [
        {"sourceId": "ghost-1", "targetId": "ghost-2", "type": "CAUSES"}]})
    assert codes(ghost) == ["INVALID_INPUT"]
    assert ghost["errors"][0]["message"].startswith("item 0: memory 'ghost-1' not found")

    search_k = await api.call(api.tokens.a, "{ search(query: \"x\", k: 0) { cached } }")
    assert codes(search_k) == ["INVALID_INPUT"]
    assert search_k["errors"][0]["message"].startswith("k:")
    for name in ("kinds", "channels"):  # an empty list is refused, as namespaces: [] is, not read as the default
        empty = await api.call(api.tokens.a, f"{{ search(query: \"x\", {name}: []) {{ cached }} }}")
        assert codes(empty) == ["INVALID_INPUT"]
        assert empty["errors"][0]["message"].startswith(f"{name}: give at least one")
    attempted = {"fine", "   ", "nan confidence", "over one"}
    assert not attempted & set(await contents(api, ns)), "a refused batch wrote something"


# --- idempotency ----------------------------------------------------------------------------------------------


async def test_replayed_request_id_returns_the_first_result(api: Api) -> None:
    batch = {"memories": [memory(api.ns_a, "Replay me: the launch moved to Tuesday"),
                          memory(api.ns_a, "Replay me: the budget is frozen")], "requestId": "req-replay-1"}
    first = (await api.data(api.tokens.a, WRITE, batch))["writeMemories"]
    again = (await api.data(api.tokens.a, WRITE, batch))["writeMemories"]
    assert (first["replayed"], again["replayed"]) == (False, True)
    assert again["items"] == first["items"]
    changed = {**batch, "memories": [memory(api.ns_a, "Replay me: something else entirely")]}
    conflict = await api.call(api.tokens.a, WRITE, changed)
    assert conflict["data"] is None
    assert codes(conflict) == ["CONFLICT"]
    assert "req-replay-1" in conflict["errors"][0]["message"]
    stored = [c for c in await contents(api, api.ns_a) if c.startswith("Replay me")]
    assert sorted(stored) == ["Replay me: the budget is frozen", "Replay me: the launch moved to Tuesday"]
    relate = """mutation($ns: String!, $r: [RelationInput!]!, $id: String) {
                  relate(namespace: $ns, relations: $r, requestId: $id) }"""
    edge = {"ns": api.ns_a, "id": "req-relate-1",
            "r": [{"sourceId": first["items"][0]["id"], "targetId": first["items"][1]["id"], "type": "CAUSES"}]}
    assert (await api.data(api.tokens.a, relate, edge))["relate"] == 1
    assert (await api.data(api.tokens.a, relate, edge))["relate"] == 1
    heavier = {**edge, "r": [{"sourceId": first["items"][0]["id"], "targetId": first["items"][1]["id"],
                              "type": "CAUSES", "weight": 0.5}]}
    assert codes(await api.call(api.tokens.a, relate, heavier)) == ["CONFLICT"]


async def test_a_stored_id_with_other_content_is_a_conflict(api: Api) -> None:
    first = {"memories": [memory(api.ns_a, "Id me: the office is on floor 3", id="id-me-1")]}
    assert [i["action"] for i in (await api.data(api.tokens.a, WRITE, first))["writeMemories"]["items"]] == ["CREATED"]
    again = (await api.data(api.tokens.a, WRITE, first))["writeMemories"]["items"]
    assert [i["action"] for i in again] == ["EXISTS"]  # the same content again: a retry, not a conflict
    other = {"memories": [memory(api.ns_a, "Id me: fine"),
                          memory(api.ns_a, "Id me: the office moved to floor 5", id="id-me-1")]}
    refused = await api.call(api.tokens.a, WRITE, other)
    assert codes(refused) == ["CONFLICT"]
    assert refused["errors"][0]["message"].startswith("item 1: memory 'id-me-1' exists with other content")
    stored = sorted(c for c in await contents(api, api.ns_a) if c.startswith("Id me"))
    assert stored == ["Id me: the office is on floor 3"]  # nothing of the refused batch written


async def test_replayed_task_writes_are_not_conflicts(api: Api) -> None:
    start = "mutation($t: TaskInput!, $r: String) { startTask(task: $t, requestId: $r) { id } }"
    variables = {"t": {"namespace": api.ns_a, "id": "replayed-task", "title": "retry me"}, "r": "req-task-1"}
    assert (await api.data(api.tokens.a, start, variables))["startTask"]["id"] == "replayed-task"
    log = """mutation($ns: String!, $id: String!, $turns: [TurnInput!]!, $r: String) {
               logTurns(namespace: $ns, taskId: $id, turns: $turns, requestId: $r) { id seq } }"""
    turns = {"ns": api.ns_a, "id": "replayed-task", "turns": [{"role": "USER", "content": "hello"}], "r": "req-turn-1"}
    first = await api.data(api.tokens.a, log, turns)
    assert await api.call(api.tokens.a, log, turns) == {"data": first}
    assert await api.call(api.tokens.a, start, variables) == {"data": {"startTask": {"id": "replayed-task"}}}
