"""The HTTP surface of /graphql on the real app and Neo4j: every answer to bad input is coded JSON (never a 5xx),
lone surrogates are refused before anything runs, expected errors log one line, and metric labels stay bounded.

Ends with a hypothesis fuzz of methods, content types and bodies.
"""

from __future__ import annotations

import json
import logging
import re
import string
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from graphmem.api.edge import REQUEST_CODES
from graphmem.config import Settings
from graphmem.embed import Embedder
from tests.integration.api_support import WRITE, Api, codes, open_api, post

OPERATIONS = Path(__file__).resolve().parents[2] / "graphql" / "operations"
MEMORIES = "query($ns: String!) { memories(namespace: $ns, first: 200) { items { id content } } }"
SURROGATE = "\ud800"


@pytest.fixture(scope="module")
async def api(migrated: Settings, embedder: Embedder) -> AsyncIterator[Api]:
    async with open_api(migrated, embedder, seed=False) as env:
        yield env


def headers(api: Api, content_type: str | None = "application/json") -> dict[str, str]:
    sent = {"Authorization": f"Bearer {api.tokens.a}"}
    if content_type is not None:
        sent["Content-Type"] = content_type
    return sent


def refused(response: httpx.Response, status: int, code: str) -> str:
    """The message of a coded JSON refusal, after checking its status, shape, code and request id."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json"), response.text
    body = response.json()
    assert "data" not in body, body
    (error,) = body["errors"]
    assert error["extensions"]["code"] == code, body
    assert error["extensions"]["requestId"] == response.headers["x-request-id"]
    message: str = error["message"]
    return message


# --- bodies that were a plain-text 500 --------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"1", b"null", b'"x"', b"\xff\xfe\x00{}", b"[" * 50_000 + b"]" * 50_000],
                         ids=["number", "null", "string", "invalid-utf8", "nested-50000"])
async def test_bodies_that_were_500_are_coded_400(api: Api, raw: bytes) -> None:
    response = await api.client.post("/graphql", content=raw, headers=headers(api))
    refused(response, 400, "BAD_REQUEST")


# --- 4xx answers that had no code ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "words"), [
    (b"{", "unable to parse"),
    (b'[{"query": "{ __typename }"}]', "batching is not enabled"),
    (b"{}", "no GraphQL query"),
    (b'{"query": "{ __typename }", "variables": [1]}', "`variables` must be an object"),
    (b'{"query": "query A { __typename }", "operationName": "B"}', 'Unknown operation named "B"'),
])
async def test_bad_requests_are_coded(api: Api, raw: bytes, words: str) -> None:
    response = await api.client.post("/graphql", content=raw, headers=headers(api))
    assert words in refused(response, 400, "BAD_REQUEST")


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x"])
async def test_unsupported_content_types_are_415(api: Api, content_type: str | None) -> None:
    response = await api.client.post("/graphql", content=b'{"query": "{ __typename }"}',
                                     headers=headers(api, content_type))
    refused(response, 415, "UNSUPPORTED_MEDIA_TYPE")


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS"])
async def test_other_methods_are_405(api: Api, method: str) -> None:
    response = await api.client.request(method, "/graphql", headers=headers(api))
    refused(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "GET, POST"


async def test_get_runs_no_operation_and_still_serves_graphiql(api: Api) -> None:
    for query in ("{ __typename }", f'mutation {{ deleteMemories(namespace: "{api.ns_a}", ids: ["x"]) }}'):
        for accept in ("application/json", "text/html"):
            response = await api.client.get("/graphql", params={"query": query},
                                            headers={**headers(api, None), "Accept": accept})
            refused(response, 405, "METHOD_NOT_ALLOWED")
    page = await api.client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "graphiql" in page.text.lower()


# --- lone surrogates ---------------------------------------------------------------------------------------------


def surrogate_cases(ns: str) -> list[tuple[str, dict[str, Any], str]]:
    """(operation, variables, the place the refusal must name): one per kind of string argument."""
    memory = {"namespace": ns, "kind": "SEMANTIC", "content": "fine text"}
    return [
        (WRITE, {"memories": [{**memory, "content": f"bad {SURROGATE}"}]}, "variables.memories[0].content"),
        (WRITE, {"memories": [{**memory, "entities": ["ok", SURROGATE]}]}, "variables.memories[0].entities[1]"),
        (WRITE, {"memories": [{**memory, "derivedFrom": [SURROGATE]}]}, "variables.memories[0].derivedFrom[0]"),
        (WRITE, {"memories": [{**memory, "taskId": SURROGATE}]}, "variables.memories[0].taskId"),
        (WRITE, {"memories": [memory], "requestId": SURROGATE}, "variables.requestId"),
        ("query($q: String!) { search(query: $q) { results { memory { id } } } }", {"q": f"x{SURROGATE}"},
         "variables.q"),
        ("query($id: ID!) { memory(id: $id) { id } }", {"id": SURROGATE}, "variables.id"),
        ("mutation($ns: String!, $ids: [ID!]!) { deleteMemories(namespace: $ns, ids: $ids) }",
         {"ns": ns, "ids": [SURROGATE]}, "variables.ids[0]"),
        ("mutation($ns: String!, $id: ID!, $o: String) { endTask(namespace: $ns, id: $id, outcome: $o) { id } }",
         {"ns": ns, "id": "t-1", "o": SURROGATE}, "variables.o"),
        ("mutation($ns: String!, $id: String!, $t: [TurnInput!]!) { logTurns(namespace: $ns, taskId: $id, "
         "turns: $t) { id } }", {"ns": ns, "id": SURROGATE, "t": []}, "variables.id"),
        ('{ search(query: "x' + SURROGATE + '") { results { memory { id } } } }', {}, "query"),
        (f'mutation {{ writeMemories(memories: [{{namespace: "{ns}", kind: SEMANTIC, content: "a", '
         f'entities: ["{SURROGATE}"]}}]) {{ replayed }} }}', {}, "query"),
    ]


async def test_lone_surrogates_in_any_string_are_invalid_input_and_nothing_runs(api: Api) -> None:
    for query, variables, place in surrogate_cases(api.ns_a):
        raw = json.dumps({"query": query, "variables": variables}).encode()  # ensure_ascii: "\ud800" escapes
        response = await api.client.post("/graphql", content=raw, headers=headers(api))
        message = refused(response, 400, "INVALID_INPUT")
        assert message.startswith(f"{place}: a lone UTF-16 surrogate (U+D800)"), (place, message)
    listed = await api.data(api.tokens.a, MEMORIES, {"ns": api.ns_a})
    assert listed["memories"]["items"] == []


# --- logging --------------------------------------------------------------------------------------------------------


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Records of graphmem's loggers at INFO (the app's configure_logging stops them propagating to caplog)."""
    graphmem = logging.getLogger("graphmem")
    level = graphmem.level
    graphmem.addHandler(caplog.handler)
    graphmem.setLevel(logging.INFO)
    caplog.set_level(logging.INFO)
    try:
        yield caplog
    finally:
        graphmem.removeHandler(caplog.handler)
        graphmem.setLevel(level)


async def test_expected_errors_log_one_line_without_a_traceback(api: Api, logged: pytest.LogCaptureFixture) -> None:
    cases = [("query ReadB($ns: String!) { stats(namespace: $ns) { namespace } }", {"ns": api.ns_b}, "FORBIDDEN"),
             ("query Missing($ns: String!) { memory(id: \"nope\", namespace: $ns) { id } }", {"ns": api.ns_a},
              "NOT_FOUND")]
    for query, variables, code in cases:
        logged.clear()
        response = await post(api.client, api.tokens.a, query, variables)
        assert codes(response.json()) == [code]
        ours = [r for r in logged.records if r.name.startswith(("graphmem", "strawberry"))
                and r.getMessage() != "request"]
        assert len(ours) == 1, [r.getMessage() for r in ours]
        (line,) = ours
        assert (line.name, line.levelno, line.exc_info) == ("graphmem.api", logging.INFO, None)
        assert getattr(line, "code", None) == code
        assert getattr(line, "request_id", None) == response.headers["x-request-id"]
        assert getattr(line, "operation", None) == query.split()[1].split("(")[0]


# --- metrics --------------------------------------------------------------------------------------------------------


async def test_client_operation_names_do_not_grow_metric_labels(api: Api) -> None:
    for i in range(80):
        await post(api.client, api.tokens.a, f"query Flood{i}x{api.ns_a[-6:]} {{ __typename }}")
    await post(api.client, api.tokens.a, "query Stats($ns: String!) { stats(namespace: $ns) { namespace } }",
               {"ns": api.ns_a})
    text = (await api.client.get("/metrics")).text
    labels = set(re.findall(r'^graphmem_graphql_operations_total\{operation="([^"]*)"', text, re.M))
    assert len([label for label in labels if label.startswith("Flood")]) <= 50
    assert {"other", "Stats"} <= labels


# --- fuzz -----------------------------------------------------------------------------------------------------------

def example_variables(operation: str) -> list[str]:
    return sorted(set(re.findall(r"\$(\w+)", operation)))


EXAMPLES = sorted(p.read_text(encoding="utf-8") for p in OPERATIONS.glob("*.graphql"))
NAMES = sorted(p.stem for p in OPERATIONS.glob("*.graphql"))
VARIABLES = sorted({name for operation in EXAMPLES for name in example_variables(operation)})
ASCII = st.text(string.ascii_letters + string.digits + string.punctuation + " ", max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12)


@st.composite
def bodies(draw: st.DrawFn, ns: str) -> bytes:
    """Mostly a request of an example operation with variables of its own names, else anything."""
    kind = draw(st.sampled_from(["raw", "json", "request"] + ["example"] * 7))
    if kind == "raw":
        return draw(st.binary(max_size=200))
    if kind == "json":
        return json.dumps(draw(json_values)).encode()
    values = st.just(ns) | json_values | st.sampled_from(["SEMANTIC", "USER", "RELATES_TO", "FORMULA", "m-1",
                                                          SURROGATE, f"ok{SURROGATE}"])
    if kind == "example":
        operation = draw(st.sampled_from(EXAMPLES))
        names = example_variables(operation)
        variables = {name: draw(st.just(ns) if name == "namespace" and draw(st.booleans()) else values)
                     for name in names if draw(st.integers(0, 5))}
        return json.dumps({"query": operation, "variables": variables}).encode()
    request: dict[str, Any] = {}
    if draw(st.integers(0, 5)):
        request["query"] = draw(st.sampled_from(EXAMPLES) | st.text(max_size=60) | json_values)
    if draw(st.booleans()):
        request["variables"] = draw(st.dictionaries(st.sampled_from(VARIABLES), values, max_size=5) | json_values)
    if draw(st.booleans()):
        request["operationName"] = draw(st.sampled_from(NAMES) | json_values)
    return json.dumps(request).encode()


@settings(max_examples=150, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
async def test_fuzz_never_5xx_and_every_error_coded(api: Api, data: st.DataObject) -> None:
    usual = data.draw(st.integers(0, 9)) < 8  # mostly a POST of JSON, so that most requests reach GraphQL
    method = "POST" if usual else data.draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]))
    content_type = "application/json" if usual else data.draw(
        st.sampled_from(["text/plain", "application/json; charset=utf-16", "application/json; x=y"]) | ASCII
        | st.none())
    sent = headers(api, content_type)
    body = data.draw(bodies(api.ns_a))
    if method == "GET":
        response = await api.client.get("/graphql", headers=sent, params=data.draw(
            st.dictionaries(st.sampled_from(["query", "variables", "operationName"]), ASCII, max_size=3)))
    else:
        response = await api.client.request(method, "/graphql", content=body, headers=sent)
    assert response.status_code < 500, (method, content_type, body, response.text)
    if response.headers.get("content-type", "").startswith("text/html"):
        assert method == "GET"  # the GraphiQL page
        return
    answer = response.json()
    event(f"{response.status_code} {sorted({e.get('extensions', {}).get('code') for e in answer.get('errors') or []})}")
    if response.status_code != 200:
        assert "errors" in answer, answer
    for error in answer.get("errors") or []:
        code = error.get("extensions", {}).get("code")
        assert code, (body, answer)
        assert code != "INTERNAL", (method, content_type, body, answer)
        if response.status_code != 200:
            assert code in REQUEST_CODES
