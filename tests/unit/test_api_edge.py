"""The HTTP edge of /graphql without Neo4j: request checks, coded refusals, error logging and metric labels.

The app here is the real guard, view and request log around the real schema; only the per-request context is a
stand-in (no operation below reaches the store).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket

from graphmem.api.app import Guard, RequestLog, http_refusal
from graphmem.api.context import Context
from graphmem.api.edge import (
    MAX_JSON_DEPTH,
    REQUEST_CODES,
    EdgeError,
    EdgeView,
    invalid_text,
    json_depth_exceeds,
    media_type,
    parse_body,
    request_data,
)
from graphmem.api.observability import JsonFormatter, Metrics
from graphmem.api.schema import root_operation_names, schema
from graphmem.config import Settings
from graphmem.errors import ForbiddenError, NotFoundError
from graphmem.security import RateLimiter, TokenStore, make_entry, new_token

TOKEN, TOKEN_HASH = new_token()
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON_AUTH = {**AUTH, "Content-Type": "application/json"}
DEEP = b"[" * 50_000 + b"]" * 50_000


class FakeService:
    """Raises what a resolver may meet: an expected error (stats, memory) or a bug (entities)."""

    async def stats(self, namespace: str) -> object:
        raise ForbiddenError(f"may not read namespace {namespace!r}")

    async def get_memory(self, id: str, namespace: str | None) -> object:
        raise NotFoundError(f"no memory {id!r}")

    async def entities(self, namespace: str, first: int) -> object:
        raise RuntimeError("a bug deep inside")


class BareView(EdgeView):
    def __init__(self, metrics: Metrics) -> None:
        super().__init__(schema, graphql_ide="graphiql", allow_queries_via_get=False)
        self.metrics = metrics

    async def get_context(self, request: Request | WebSocket, response: Response | WebSocket) -> Context:
        return cast(Context, SimpleNamespace(service=FakeService(), request_id="rid-unit", metrics=self.metrics))


@pytest.fixture
def metrics() -> Metrics:
    return Metrics(known_operations=root_operation_names(), max_operation_labels=5)


@pytest.fixture
def client(metrics: Metrics) -> Iterator[TestClient]:
    settings = Settings(tokens=json.dumps({"tokens": [make_entry("t", TOKEN_HASH, write=["ns"]).to_dict()]}),
                        tokens_file=None, demo_mode=False, rate_limit_per_s=1000.0, rate_limit_burst=1000)
    app = Starlette(routes=[Route("/graphql", Guard(BareView(metrics)))])
    app.state.graphmem = SimpleNamespace(settings=settings, tokens=TokenStore.from_settings(settings),
                                         limiter=RateLimiter.from_settings(settings))
    app.add_middleware(RequestLog, metrics=metrics)
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Records of graphmem's loggers (configure_logging stops them propagating) and of strawberry's."""
    graphmem = logging.getLogger("graphmem")
    previous = graphmem.level, graphmem.propagate
    graphmem.addHandler(caplog.handler)
    graphmem.setLevel(logging.INFO)
    graphmem.propagate = False
    caplog.set_level(logging.INFO)
    try:
        yield caplog
    finally:
        graphmem.removeHandler(caplog.handler)
        graphmem.setLevel(previous[0])
        graphmem.propagate = previous[1]


def ours(logged: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """graphmem's and strawberry's records, but the access log line of each request."""
    return [r for r in logged.records if r.name.startswith(("graphmem", "strawberry")) and r.getMessage() != "request"]


def refused(response: Any, status: int, code: str) -> str:
    """The message of a coded refusal (asserting its status, shape, code and request id)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"errors"}, body
    (error,) = body["errors"]
    assert error["extensions"] == {"code": code, "requestId": response.headers["x-request-id"]}
    assert code in REQUEST_CODES
    message: str = error["message"]
    return message


# --- the body parser ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "words"), [
    (b"1", "not a number"), (b"null", "not null"), (b'"x"', "not a string"), (b"true", "not a boolean"),
    (b"\xff{}", "not valid UTF-8"),
    (DEEP, "deeper than 64"), (b"{", "unable to parse"), (b"[{}]", "batching is not enabled"),
    (b'{"n": ' + b"9" * 5000 + b"}", "unable to parse"),
])
def test_bodies_that_are_no_request_object_are_bad_request(raw: bytes, words: str) -> None:
    with pytest.raises(EdgeError) as caught:
        parse_body(raw)
    assert (caught.value.status, caught.value.code) == (400, "BAD_REQUEST")
    assert words in caught.value.message


def test_depth_prescan_counts_brackets_outside_strings_only() -> None:
    assert not json_depth_exceeds("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    assert json_depth_exceeds("[" * (MAX_JSON_DEPTH + 1))
    assert not json_depth_exceeds(json.dumps({"query": "[{" * 500 + '\\"' + "{" * 500}))
    assert parse_body(json.dumps({"query": "{" * 1000}).encode()) == {"query": "{" * 1000}


@pytest.mark.parametrize(("data", "words"), [
    ({}, "no GraphQL query"), ({"query": "  "}, "no GraphQL query"), ({"query": 5}, "no GraphQL query"),
    ({"query": "{a}", "variables": [1]}, "`variables` must be an object"),
    ({"query": "{a}", "operationName": 5}, "`operationName` must be a string"),
    ({"query": "{a}", "extensions": "x"}, "`extensions` must be an object"),
])
def test_members_of_the_wrong_type_are_bad_request(data: dict[str, Any], words: str) -> None:
    with pytest.raises(EdgeError) as caught:
        request_data(data)
    assert caught.value.code == "BAD_REQUEST"
    assert words in caught.value.message


@pytest.mark.parametrize(("data", "place"), [
    ({"query": '{ stats(namespace: "\ud800") }'}, "query"),
    ({"query": "{a}", "variables": {"ids": ["ok", "x\udfff"]}}, "variables.ids[1]"),
    ({"query": "{a}", "variables": {"m": [{"derivedFrom": ["\ud83d"]}]}}, "variables.m[0].derivedFrom[0]"),
    ({"query": "{a}", "variables": {"\ud800": 1}}, "variables (a key)"),
    ({"query": "{a}", "operationName": "A\ud800"}, "operationName"),
    ({"query": "{a}", "extensions": {"e": "\udc00"}}, "extensions.e"),
])
def test_lone_surrogates_anywhere_are_invalid_input_naming_the_place(data: dict[str, Any], place: str) -> None:
    with pytest.raises(EdgeError) as caught:
        request_data(data)
    assert (caught.value.status, caught.value.code) == (400, "INVALID_INPUT")
    assert caught.value.message.startswith(f"{place}: a lone UTF-16 surrogate")
    caught.value.message.encode("utf-8")  # the message itself is valid text


def test_valid_text_passes() -> None:
    assert invalid_text({"q": ["emoji \U0001f600", "中文", "\x00"]}, "variables") is None
    assert request_data({"query": "{a}", "variables": None})[0].variables is None


def test_media_type() -> None:
    assert media_type("Application/JSON; charset=UTF-8") == ("application/json", "utf-8")
    assert media_type('application/json;charset="utf8"') == ("application/json", "utf8")
    assert media_type("") == ("", None)


# --- over HTTP (guard, view, request log) ---------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"1", b"null", b'"x"', b"\xff\xfe{", DEEP, b"{", b"[{}]", b"{}",
                                 b'{"query": "{ __typename }", "variables": [1]}'])
def test_bad_bodies_are_coded_400_not_500(client: TestClient, raw: bytes) -> None:
    refused(client.post("/graphql", content=raw, headers=JSON_AUTH), 400, "BAD_REQUEST")


def test_unknown_operation_name_is_bad_request(client: TestClient) -> None:
    body = {"query": "query A { __typename }", "operationName": "B"}
    message = refused(client.post("/graphql", json=body, headers=AUTH), 400, "BAD_REQUEST")
    assert "B" in message


def test_several_operations_need_an_operation_name(client: TestClient) -> None:
    document = "mutation B { deleteMemories(namespace: \"ns\", ids: [\"x\"]) } query A { a: __typename }"
    message = refused(client.post("/graphql", json={"query": document}, headers=AUTH), 400, "BAD_REQUEST")
    assert "2 operations" in message
    assert "operationName" in message
    named = client.post("/graphql", json={"query": document, "operationName": "A"}, headers=AUTH)
    assert (named.status_code, named.json()) == (200, {"data": {"a": "Query"}})
    fragment = "query A { ...F } fragment F on Query { __typename }"  # one operation and a fragment: runs
    assert client.post("/graphql", json={"query": fragment}, headers=AUTH).json() == {"data": {"__typename": "Query"}}


def test_unknown_paths_and_methods_elsewhere_are_coded_json(metrics: Metrics) -> None:
    async def ok(request: Request) -> Response:
        return Response("ok")

    app = Starlette(routes=[Route("/healthz", ok)], exception_handlers={HTTPException: http_refusal})
    app.add_middleware(RequestLog, metrics=metrics)
    with TestClient(app) as plain:
        message = refused(plain.post("/nope"), 404, "NOT_FOUND")
        assert "/nope" in message
        assert "/graphql" in message
        response = plain.post("/healthz")
        refused(response, 405, "METHOD_NOT_ALLOWED")
        assert "GET" in response.headers["allow"]
        assert plain.get("/healthz").text == "ok"


@pytest.mark.parametrize("content_type", ["text/plain", "application/graphql", "multipart/form-data",
                                          "application/json; charset=latin-1", None])
def test_other_content_types_are_415(client: TestClient, content_type: str | None) -> None:
    headers = {**AUTH, **({"Content-Type": content_type} if content_type else {})}
    refused(client.post("/graphql", content=b'{"query": "{ __typename }"}', headers=headers), 415,
            "UNSUPPORTED_MEDIA_TYPE")


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS"])
def test_other_methods_are_405_before_auth(client: TestClient, method: str) -> None:
    response = client.request(method, "/graphql")
    refused(response, 405, "METHOD_NOT_ALLOWED")
    assert response.headers["allow"] == "GET, POST"


def test_get_serves_graphiql_but_runs_no_operation(client: TestClient) -> None:
    page = client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert "graphiql" in page.text.lower()
    for headers in ({"Accept": "text/html"}, {**AUTH, "Accept": "application/json"}):
        for query in ("{ __typename }", "mutation { __typename }"):
            response = client.get("/graphql", params={"query": query}, headers=headers)
            refused(response, 405, "METHOD_NOT_ALLOWED")
            assert response.headers["allow"] == "POST"
    refused(client.get("/graphql", params={"query": "{ __typename }"}), 401, "UNAUTHENTICATED")


def test_a_well_formed_request_still_runs(client: TestClient) -> None:
    response = client.post("/graphql", json={"query": "{ __typename }"}, headers=AUTH)
    assert (response.status_code, response.json()) == (200, {"data": {"__typename": "Query"}})


def test_surrogate_in_query_text_is_invalid_input(client: TestClient) -> None:
    raw = b'{"query": "{ stats(namespace: \\"\\ud800\\") { namespace } }"}'
    message = refused(client.post("/graphql", content=raw, headers=JSON_AUTH), 400, "INVALID_INPUT")
    assert "query: a lone UTF-16 surrogate (U+D800)" in message


def test_an_unhandled_exception_is_a_coded_json_500() -> None:
    async def broken(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("boom")

    test_client = TestClient(RequestLog(broken, Metrics()), raise_server_exceptions=False)  # no lifespan
    response = test_client.get("/anything", headers={"X-Request-ID": "r-500"})
    assert response.status_code == 500
    assert response.json() == {"errors": [{"message": "Internal server error",
                                           "extensions": {"code": "INTERNAL", "requestId": "r-500"}}]}


# --- logging: one line for expected errors, a traceback for the rest ------------------------------------------


def test_expected_errors_log_one_line_without_traceback(client: TestClient,
                                                        logged: pytest.LogCaptureFixture) -> None:
    for query, code in (('query Probe { stats(namespace: "ns-x") { namespace } }', "FORBIDDEN"),
                        ('query Probe { memory(id: "m-1") { id } }', "NOT_FOUND")):
        logged.clear()
        response = client.post("/graphql", json={"query": query}, headers=AUTH)
        assert [e["extensions"]["code"] for e in response.json()["errors"]] == [code]
        lines = ours(logged)
        assert len(lines) == 1, [r.getMessage() for r in lines]
        (line,) = lines
        assert (line.name, line.levelno, line.exc_info) == ("graphmem.api", logging.INFO, None)
        fields = {key: getattr(line, key, None) for key in ("code", "request_id", "operation", "field")}
        assert fields == {"code": code, "request_id": "rid-unit", "operation": "Probe",
                          "field": query.split()[3].split("(")[0]}
        assert len(JsonFormatter().format(line)) < 400


def test_unexpected_errors_keep_their_traceback(client: TestClient, logged: pytest.LogCaptureFixture) -> None:
    response = client.post("/graphql", json={"query": '{ entities(namespace: "ns") { name } }'}, headers=AUTH)
    assert response.json()["errors"][0]["extensions"]["code"] == "INTERNAL"
    assert response.json()["errors"][0]["message"] == "Internal server error"
    (line,) = [r for r in logged.records if r.levelno >= logging.ERROR]
    assert line.exc_info is not None
    assert "a bug deep inside" in logging.Formatter().format(line)


def test_refused_requests_log_one_line(client: TestClient, logged: pytest.LogCaptureFixture) -> None:
    response = client.post("/graphql", content=b"null", headers=JSON_AUTH)
    (line,) = ours(logged)
    assert (line.levelno, line.exc_info) == (logging.INFO, None)
    assert (getattr(line, "code", None), getattr(line, "request_id", None)) == (
        "BAD_REQUEST", response.headers["x-request-id"])


# --- metric labels ----------------------------------------------------------------------------------------------


def test_operation_labels_are_bounded() -> None:
    metrics = Metrics(known_operations={"Stats"}, max_operation_labels=2)
    assert [metrics.operation_label(n, admit=True) for n in ("A", "B", "C", "A", "Stats", None)] == [
        "A", "B", "other", "A", "Stats", "anonymous"]
    assert metrics.operation_label("D" * 65, admit=True) == "other"
    fresh = Metrics(max_operation_labels=2)
    assert fresh.operation_label("A", admit=False) == "other"  # a document that did not parse admits nothing


def test_client_operation_names_cannot_grow_the_label_set(client: TestClient, metrics: Metrics) -> None:
    for i in range(30):
        client.post("/graphql", json={"query": f"query Op{i} {{ __typename }}"}, headers=AUTH)
        client.post("/graphql", json={"query": "{ x", "operationName": f"Junk{i}"}, headers=AUTH)
    client.post("/graphql", json={"query": "query Stats { __typename }"}, headers=AUTH)
    labels = {s.labels["operation"] for m in metrics.operations.collect() for s in m.samples}
    assert labels == {"Op0", "Op1", "Op2", "Op3", "Op4", "other", "Stats"}, labels
    assert not any(re.match("Junk", label) for label in labels)


def test_a_rate_limited_request_says_in_its_body_how_long_to_wait(metrics: Metrics) -> None:
    """429 RATE_LIMITED: the body's ``extensions.retryAfter`` (what docs/errors.md tells clients to wait on) is the
    header's ``Retry-After``: whole seconds, at least 1, however little time the bucket needs."""
    for per_s, expected in ((1000.0, 1), (0.4, 3)):  # a token back in 1 ms; in 2.5 s
        settings = Settings(tokens=json.dumps({"tokens": [make_entry("t", TOKEN_HASH, write=["ns"]).to_dict()]}),
                            tokens_file=None, demo_mode=False)
        app = Starlette(routes=[Route("/graphql", Guard(BareView(metrics)))])
        app.state.graphmem = SimpleNamespace(settings=settings, tokens=TokenStore.from_settings(settings),
                                             limiter=RateLimiter(per_s, 1, clock=lambda: 0.0))  # time stands still
        with TestClient(app, raise_server_exceptions=False) as test_client:
            first, limited = (test_client.post("/graphql", json={"query": "{ __typename }"}, headers=JSON_AUTH)
                              for _ in range(2))
        assert (first.status_code, limited.status_code) == (200, 429)
        (error,) = limited.json()["errors"]
        assert error["extensions"]["code"] == "RATE_LIMITED"
        assert error["extensions"]["retryAfter"] == int(limited.headers["retry-after"]) == expected, per_s
        assert " 0.00s" not in error["message"]
