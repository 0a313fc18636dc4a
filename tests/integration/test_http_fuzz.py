"""A property-based fuzz of the HTTP surface on the real app (uvicorn, real HTTP on loopback) and the real Neo4j.

Callers: tokens of tenants A and B (each with seeded data the other must never see), A's read-only token, an admin,
no token and a wrong one. Requests: operations valid against graphql/schema.graphql (hypothesis-graphql) with
tenant-aware and hostile values, reshaped with variables (of the wrong type too), aliases and fragments; hostile
bodies, methods, content types and headers; the other paths (/mcp, /metrics, health, unknown).

Every answer: never a 5xx; on /graphql JSON with data or errors, each error with a documented code other than
INTERNAL and the request's id; no traceback, file path, Python or driver class name, nor another tenant's
namespace, ids or data in any answer, unless the request held it; no unexpected error logged. Afterwards the
server still answers its health checks, a write and a search.

Deterministic (derandomize) and bounded for CI (~2-3 minutes with the server's start); GRAPHMEM_FUZZ_EXAMPLES=N
runs N examples per test (a longer campaign), GRAPHMEM_FUZZ_SEED=S another, random-seeded sequence.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis import strategies as st

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.mcp.http import NOT_A_MESSAGE
from tests.integration.fuzz_strategies import HOSTILE, hostile_bodies, operations
from tests.integration.fuzz_support import (
    Served,
    assert_no_logged_errors,
    assert_still_serving,
    check_graphql,
    check_other,
    client,
    serve,
)

CALLERS = ["a"] * 5 + ["b"] * 2 + ["admin"] * 2 + ["a-read-only", "anonymous", "wrong-token"]
CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "text/plain",
                 "application/json; charset=latin-1", "application/graphql", "multipart/form-data; boundary=x",
                 "application/x-www-form-urlencoded", "application/json;;", ""]


def examples(default: int) -> int:
    """``default``, or GRAPHMEM_FUZZ_EXAMPLES (read when the test runs, not at import)."""
    return int(os.environ.get("GRAPHMEM_FUZZ_EXAMPLES") or default)


def campaign(examples: int) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Hypothesis settings: ``examples`` examples, derandomized unless GRAPHMEM_FUZZ_SEED is set."""
    chosen = os.environ.get("GRAPHMEM_FUZZ_SEED")

    def apply(test: Callable[..., None]) -> Callable[..., None]:
        configured: Callable[..., None] = settings(
            max_examples=examples, derandomize=chosen is None, database=None, deadline=None, print_blob=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.large_base_example])(test)
        return seed(int(chosen))(configured) if chosen is not None else configured

    return apply


@pytest.fixture(scope="module")
async def served(migrated: Settings, embedder: Embedder) -> AsyncIterator[Served]:
    async with serve(migrated, embedder) as env:
        yield env


@pytest.fixture
def http(served: Served) -> Iterator[httpx.Client]:
    with client(served) as session:
        yield session


def headers_of(served: Served, caller: str, **extra: str) -> dict[str, str]:
    authorization = served.callers[caller].authorization
    return {**({"Authorization": authorization} if authorization is not None else {}), **extra}


def test_generated_operations_answer_coded_json_and_leak_nothing(served: Served, http: httpx.Client) -> None:
    known = served.known_strings()
    count = examples(200)  # 150 left 1 to 2 operations that ran, short of the 3 asked, once the schema grew
    outcomes: Counter[str] = Counter()

    @campaign(count)
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        caller = data.draw(st.sampled_from(CALLERS), label="caller")
        operation = data.draw(operations(known), label="operation")
        sent = json.dumps(operation.body).encode()
        before = len(served.errors)
        response = http.post("/graphql", content=sent,
                             headers=headers_of(served, caller, **{"Content-Type": "application/json"}))
        body = check_graphql(response, sent, served.callers[caller])
        assert_no_logged_errors(served, before)
        kind = "mutation" if operation.mutation else "query"
        outcome = outcome_of(body)
        outcomes[f"{kind} {outcome}"] += 1
        event(f"{kind}: {outcome}")

    run()
    print(f"generated operations, outcomes of {sum(outcomes.values())} requests: {dict(outcomes.most_common())}")
    # The fuzz reaches past the edge and GraphQL's validation into the service, queries and mutations alike, and
    # some operations run through.
    for kind in ("query", "mutation"):  # a tenth of each kind's requests (the schema's shape sets how many of each)
        reached = sum(n for key, n in outcomes.items() if key.split()[:2] in ([kind, "ran"], [kind, "resolver"]))
        sent = sum(n for key, n in outcomes.items() if key.split()[0] == kind)
        assert reached >= sent // 10, outcomes
    assert outcomes["query ran"] + outcomes["mutation ran"] >= count // 50, outcomes
    assert_still_serving(served)


def outcome_of(body: dict[str, Any]) -> str:
    """"ran" (a root field answered), "resolver CODES" (a resolver refused), or "refused CODES" (never executed)."""
    if any(value is not None for value in (body.get("data") or {}).values()):
        return "ran"
    errors = body.get("errors") or []
    where = "resolver" if any(e.get("path") for e in errors) else "refused"
    return f"{where} {','.join(sorted(set(codes(body))))}"


def codes(body: dict[str, Any]) -> list[str]:
    return [str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or []]


def test_hostile_requests_are_refused_with_a_code(served: Served, http: httpx.Client) -> None:
    known = served.known_strings()

    @campaign(examples(300))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        caller = data.draw(st.sampled_from(CALLERS), label="caller")
        method = data.draw(st.sampled_from(["POST"] * 6 + ["GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]))
        body = data.draw(hostile_bodies(known), label="body")
        extra = {"Content-Type": data.draw(st.sampled_from(CONTENT_TYPES[:1] * 8 + CONTENT_TYPES))}
        if data.draw(st.integers(0, 4)) == 0:
            extra["Accept"] = data.draw(st.sampled_from(["text/html", "*/*", "application/graphql-response+json",
                                                         "text/event-stream"]))
        if data.draw(st.integers(0, 4)) == 0:
            extra["X-Request-ID"] = data.draw(st.sampled_from(["", "x" * 65, "a b", "id-1", "../../x"]))
        chunked = data.draw(st.integers(0, 4)) == 0  # no Content-Length: the size limit counts what arrives
        content: bytes | Iterator[bytes] = iter([body[i:i + 65536] for i in range(0, len(body), 65536)]) \
            if chunked else body
        before = len(served.errors)
        response = http.request(method, "/graphql", content=content, headers=headers_of(served, caller, **extra))
        if method == "HEAD":
            assert response.status_code < 500, response.headers
        elif response.headers.get("content-type", "").startswith("text/html"):
            assert method == "GET", response.text[:300]  # the GraphiQL page
            check_other(response, body, served.callers[caller])
        else:
            answer = check_graphql(response, body, served.callers[caller])
            event(f"{method} {response.status_code} {sorted(set(codes(answer)))}")
        assert_no_logged_errors(served, before)

    run()
    assert_still_serving(served)


PATHS = ["/mcp", "/mcp", "/mcp/", "/metrics", "/healthz", "/readyz", "/", "/graphql/", "/nope", "/static/x.js",
         "/graphql/../metrics", "/%00", "/graphiql"]
RPC_METHODS = ["initialize", "tools/list", "tools/call", "ping", "resources/list", "prompts/get", "nope", ""]


@st.composite
def mcp_bodies(draw: st.DrawFn, known: list[str]) -> bytes:
    """JSON-RPC messages with hostile members, or anything at all."""
    if draw(st.integers(0, 2)) == 0:
        return draw(hostile_bodies(known))
    message: dict[str, Any] = {"jsonrpc": draw(st.sampled_from(["2.0", "1.0", None])),
                               "method": draw(st.sampled_from(RPC_METHODS)),
                               "id": draw(st.none() | st.integers() | st.sampled_from(HOSTILE[:5]))}
    if message["method"] == "tools/call":
        message["params"] = {"name": draw(st.sampled_from(["search", "write_memories", "get_memory", "nope"])),
                             "arguments": draw(st.dictionaries(st.sampled_from(
                                 ["query", "namespace", "namespaces", "id", "memories", "k"]),
                                 st.sampled_from(known) | st.sampled_from(HOSTILE) | st.integers(), max_size=4))}
    elif draw(st.booleans()):
        message["params"] = draw(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3))
    return json.dumps(draw(st.sampled_from([message, [message], [message, message]]))).encode()


def test_other_paths_never_fail_and_leak_nothing(served: Served, http: httpx.Client) -> None:
    known = served.known_strings()

    @campaign(examples(200))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        caller = data.draw(st.sampled_from(CALLERS), label="caller")
        path = data.draw(st.sampled_from(PATHS), label="path")
        method = data.draw(st.sampled_from(["POST", "POST", "GET", "DELETE", "PUT", "OPTIONS"]))
        body = data.draw(mcp_bodies(known), label="body")
        extra = {"Content-Type": data.draw(st.sampled_from(["application/json"] * 3 + CONTENT_TYPES)),
                 "Accept": data.draw(st.sampled_from(["application/json, text/event-stream", "*/*", "text/html",
                                                      "application/json"]))}
        if data.draw(st.integers(0, 3)) == 0:
            extra["Mcp-Session-Id"] = data.draw(st.sampled_from(["x", "0" * 32, "../", "\x7f"]))
        before = len(served.errors)
        response = http.request(method, path, content=body, headers=headers_of(served, caller, **extra))
        check_other(response, body, served.callers[caller])
        event(f"{path} {method} {response.status_code}")
        assert_no_logged_errors(served, before)

    run()
    assert_still_serving(served)


# --- what the fuzz found (each failed before its fix) ------------------------------------------------------------


@pytest.mark.parametrize("namespace", ["x" * 40_000, "Not A Namespace", ""])
def test_unrelate_refuses_a_malformed_namespace_as_invalid_input(served: Served, http: httpx.Client,
                                                                 namespace: str) -> None:
    """An admin may write any namespace, but unrelate did not check its form: 40,000 characters reached Neo4j's
    index on the namespace version key ("Property value is too large to index") and answered INTERNAL."""
    query = ("mutation($ns: String!) { unrelate(namespace: $ns, sourceId: \"m-1\", targetId: \"m-2\", "
             "type: RELATES_TO) }")
    sent = json.dumps({"query": query, "variables": {"ns": namespace}}).encode()
    before = len(served.errors)
    response = http.post("/graphql", content=sent, headers=headers_of(served, "admin",
                                                                      **{"Content-Type": "application/json"}))
    body = check_graphql(response, sent, served.callers["admin"])
    assert codes(body) == ["INVALID_INPUT"], body
    assert "must be 1-64 chars" in body["errors"][0]["message"]
    assert_no_logged_errors(served, before)


@pytest.mark.parametrize("raw", [b"null", b"1", b'{"jsonrpc": "2.0"}', b'{"jsonrpc": "1.0", "method": "ping", "id": 1}',
                                 b'[{"jsonrpc": "2.0", "method": "ping", "id": 1}]'])
def test_mcp_answers_a_body_that_is_no_json_rpc_message_without_pydantic_s_report(
        served: Served, http: httpx.Client, raw: bytes) -> None:
    """The SDK answered such a body with pydantic's validation report: model class names (JSONRPCRequest, ...),
    pydantic's version and links to its documentation."""
    response = http.post("/mcp", content=raw, headers=headers_of(served, "a", **{
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}))
    check_other(response, raw, served.callers["a"])
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error == {"code": -32602, "message": NOT_A_MESSAGE}, error
    assert int(response.headers["content-length"]) == len(response.content)
