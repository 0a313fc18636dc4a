"""The HTTP edge of /graphql: what a request must be before GraphQL sees it, and the coded JSON of a refusal.

Every refusal is ``{"errors": [{"message": ..., "extensions": {"code": CODE, "requestId": ...}}]}`` (no ``data``:
nothing was executed, as the GraphQL-over-HTTP spec asks of a request error) with one of these codes:

    BAD_REQUEST             400  the body is no GraphQL request: not UTF-8, not JSON, JSON nested deeper than
                                 MAX_JSON_DEPTH, not an object (a batch), no query, a member of the wrong type,
                                 an operationName the document does not hold, none for a document of several
                                 operations (strawberry would run the first: a mutation the client never chose)
    INVALID_INPUT           400  a string (anywhere: query text, variables, operationName, extensions) that is not
                                 valid Unicode text (a lone UTF-16 surrogate such as ``"\\ud800"``); 413 for a body
                                 over ``api_max_body_bytes``
    METHOD_NOT_ALLOWED      405  a method other than GET and POST; an operation sent with GET (GET serves only
                                 the GraphiQL page)
    UNSUPPORTED_MEDIA_TYPE  415  a POST whose Content-Type is not application/json (UTF-8)
    UNAUTHENTICATED         401  and RATE_LIMITED 429: the guard in app.py
    NOT_FOUND               404  a path the API does not serve (and METHOD_NOT_ALLOWED for a method that a path
                                 other than /graphql does not take): ``app.http_refusal``
    INTERNAL                500  a bug; the message is masked and the traceback logged

Errors of an executed operation (HTTP 200) carry the codes of :mod:`graphmem.api.errors`.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any, NoReturn

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLRequestData

from graphmem.api.context import Context
from graphmem.api.cost import charge_further_fields, operations, root_fields
from graphmem.api.observability import request_id_var
from graphql import GraphQLError, parse

log = logging.getLogger("graphmem.api")

REQUEST_CODES: dict[str, int] = {
    "BAD_REQUEST": 400, "INVALID_INPUT": 400, "METHOD_NOT_ALLOWED": 405, "UNSUPPORTED_MEDIA_TYPE": 415,
    "UNAUTHENTICATED": 401, "RATE_LIMITED": 429, "OVERLOADED": 503, "INTERNAL": 500, "NOT_FOUND": 404,
}
"""The codes of a refused request and their usual HTTP status (the docstring above says when each is used)."""
MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects a body may have (json.loads recurses; 50,000 levels would overflow)."""
ALLOWED_METHODS = ("GET", "POST")
_STATUS_CODES = {405: "METHOD_NOT_ALLOWED", 413: "INVALID_INPUT", 415: "UNSUPPORTED_MEDIA_TYPE"}
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_TYPES = {int: "a number", float: "a number", str: "a string", bool: "a boolean", type(None): "null"}


class EdgeError(Exception):
    """A request refused before GraphQL runs: ``status``, a code of REQUEST_CODES and a message for the client."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None, *,
                 extensions: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.extensions = extensions


def error_response(status: int, code: str, message: str, headers: dict[str, str] | None = None, *,
                   extensions: dict[str, Any] | None = None) -> JSONResponse:
    """The JSON of a refused request, with the request id of this request (and ``extensions``: ``retryAfter``)."""
    body = {"errors": [{"message": message, "extensions": {"code": code, "requestId": request_id_var.get(),
                                                           **(extensions or {})}}]}
    return JSONResponse(body, status_code=status, headers=headers)


def _bad_request(message: str) -> NoReturn:
    raise EdgeError(400, "BAD_REQUEST", message)


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when arrays and objects in ``text`` nest deeper than ``limit`` (strings skipped; no parsing)."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        char = token.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object of a POST body; EdgeError (BAD_REQUEST) for anything else."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        _bad_request(f"the request body is not valid UTF-8 (byte {exc.start})")
    if json_depth_exceeds(text):
        _bad_request(f"the request body nests arrays and objects deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(text)  # NaN and Infinity pass: GraphQL's Float refuses them as INVALID_INPUT
    except ValueError as exc:  # JSONDecodeError, and integers over Python's digit limit
        _bad_request(f"unable to parse the request body as JSON: {str(exc)[:200]}")
    if isinstance(data, list):
        _bad_request("batching is not enabled: send one operation as a JSON object")
    if not isinstance(data, dict):
        _bad_request(f"the request body must be a JSON object with a query, not {_JSON_TYPES[type(data)]}")
    return data


def request_data(data: dict[str, Any]) -> tuple[GraphQLRequestData, int]:
    """The operation of a request body: query, variables, operationName and extensions, each checked; and how many
    root fields it runs (``cost.root_fields``: 1 for a document that does not parse, which GraphQL reports)."""
    query, variables = data.get("query"), data.get("variables")
    operation, extensions = data.get("operationName"), data.get("extensions")
    if not isinstance(query, str) or not query.strip():
        _bad_request("no GraphQL query found in the request: `query` must be a non-empty string")
    if not isinstance(variables, dict | None):
        _bad_request("`variables` must be an object or null")
    if not isinstance(operation, str | None):
        _bad_request("`operationName` must be a string or null")
    if not isinstance(extensions, dict | None):
        _bad_request("`extensions` must be an object or null")
    for where, value in (("query", query), ("variables", variables), ("operationName", operation),
                         ("extensions", extensions)):
        problem = invalid_text(value, where)
        if problem is not None:
            raise EdgeError(400, "INVALID_INPUT", problem)
    try:
        document = parse(query)
    except GraphQLError:
        document = None  # GraphQL reports the syntax error; the operation costs its one request
    if operation is None and document is not None and (count := len(operations(document))) > 1:
        _bad_request(f"the document holds {count} operations: name the one to run in `operationName`")
    fields = 1 if document is None else root_fields(document, operation)
    return GraphQLRequestData(query=query, variables=variables, operation_name=operation,
                              extensions=extensions), fields


def _strings(value: object, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{where} (a key)", key
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def invalid_text(value: object, where: str) -> str | None:
    """A message naming the first string in ``value`` (keys included) that UTF-8 cannot encode, or None.

    Such a string holds a lone UTF-16 surrogate (JSON ``"\\ud800"``): Neo4j's driver and the embedder would fail on
    it deep inside a write or a search.
    """
    for place, text in _strings(value, where):
        found = _SURROGATE.search(text)
        if found is not None:
            shown = ascii(place if _SURROGATE.search(place) is None else _SURROGATE.sub("?", place))
            return (f"{shown[1:-1]}: a lone UTF-16 surrogate (U+{ord(found.group()):04X}) at character "
                    f"{found.start()} is not valid Unicode text; send UTF-8 encodable strings")
    return None


class EdgeView(GraphQL[Context, None]):
    """strawberry's ASGI view: the request checks of this module, and coded JSON for every refusal."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        response: Response
        try:
            response = await self.run(Request(scope, receive))
        except EdgeError as exc:
            response = refusal(exc.status, exc.code, exc.message, exc.headers, extensions=exc.extensions)
        except HTTPException as exc:  # strawberry's own: unknown operation name, missing query, ...
            response = refusal(exc.status_code, _STATUS_CODES.get(exc.status_code, "BAD_REQUEST"), exc.reason)
        await response(scope, receive, send)

    async def parse_http_body(self, request: AsyncHTTPRequestAdapter) -> GraphQLRequestData:
        if request.method != "POST":  # the GraphiQL page was served before this; GET runs no operation
            raise EdgeError(405, "METHOD_NOT_ALLOWED", "operations are sent with POST (application/json); GET "
                            "/graphql serves only the GraphiQL page (Accept: text/html)", {"Allow": "POST"})
        media, charset = media_type(request.content_type or "")
        if media != "application/json" or charset not in (None, "utf-8", "utf8"):
            raise EdgeError(415, "UNSUPPORTED_MEDIA_TYPE", "the request body must be application/json (UTF-8), not "
                            f"{(request.content_type or 'without a Content-Type')[:100]!r}")
        data, fields = request_data(parse_body(await request.get_body()))
        charge_further_fields(fields)
        return data


def refusal(status: int, code: str, message: str, headers: dict[str, str] | None = None, *,
            extensions: dict[str, Any] | None = None) -> JSONResponse:
    """:func:`error_response`, logged as one line (no traceback: the client's mistake, not ours)."""
    log.info("request refused: %s", message, extra={"code": code, "request_id": request_id_var.get(),
                                                     "status": status, "error": message})
    return error_response(status, code, message, headers, extensions=extensions)


def media_type(content_type: str) -> tuple[str, str | None]:
    """The media type of a Content-Type header and its charset parameter (both lower case)."""
    media, *params = content_type.split(";")
    charset = None
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"').lower()
    return media.strip().lower(), charset
