"""Expected failures carry a stable ``extensions.code`` and log one line; unexpected ones are masked and logged
with their traceback. (Refusals before GraphQL runs are coded in :mod:`graphmem.api.edge`.)"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pydantic
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from graphmem.errors import (
    ConfigError,
    ConflictError,
    EmbeddingError,
    ForbiddenError,
    GraphmemError,
    LLMError,
    NotFoundError,
    OverloadedError,
    RateLimitedError,
    StoreUnavailableError,
    UnauthenticatedError,
    ValidationError,
    ceil_seconds,
)
from graphql import GraphQLError, VariableDefinitionNode

log = logging.getLogger("graphmem.api")

CODES: tuple[tuple[type[Exception], str], ...] = (
    (NotFoundError, "NOT_FOUND"), (ForbiddenError, "FORBIDDEN"), (UnauthenticatedError, "UNAUTHENTICATED"),
    (ValidationError, "INVALID_INPUT"), (pydantic.ValidationError, "INVALID_INPUT"), (ConflictError, "CONFLICT"),
    (RateLimitedError, "RATE_LIMITED"), (OverloadedError, "OVERLOADED"), (StoreUnavailableError, "UNAVAILABLE"),
    (LLMError, "UNAVAILABLE"), (EmbeddingError, "UNAVAILABLE"),
    (ConfigError, "INVALID_CONFIG"),  # the server lacks what the operation needs (reflection without an LLM)
)
MASKED = "Internal server error"
STORE_UNAVAILABLE = "Neo4j is unavailable; try again shortly"


def code_for(exc: BaseException) -> str | None:
    for kind, code in CODES:
        if isinstance(exc, kind):
            return code
    return None


def message_for(exc: BaseException) -> str:
    if isinstance(exc, pydantic.ValidationError):
        first = exc.errors()[0]
        return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    if isinstance(exc, StoreUnavailableError):  # the driver's text names hosts, ports and queries: log only
        return STORE_UNAVAILABLE
    if isinstance(exc, ForbiddenError | NotFoundError | UnauthenticatedError):
        return str(exc)
    return str(exc)


class ErrorCodes(SchemaExtension):
    """Rewrites every error of a result: a code for the expected ones, a mask for the rest.

    Logs one line (no traceback) per expected error; the unexpected ones are logged, with their traceback, by
    :func:`log_unexpected` (the schema's ``process_errors``, which sees the original errors of every path).
    """

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is None or not getattr(result, "errors", None):
            return
        context = self.execution_context.context
        request_id = getattr(context, "request_id", None) if context is not None else None
        operation = (self.execution_context.operation_name or "anonymous")[:100]
        rewritten: list[GraphQLError] = []
        for error in result.errors or []:
            extensions = dict(error.extensions or {})
            code, message = classify(error, extensions)
            fields = {"code": code, "request_id": request_id, "operation": operation, "field": field_of(error)}
            if isinstance(error.original_error, StoreUnavailableError):  # the driver's text: for the log only
                log.warning("store unavailable in %s (request %s): %s", error.path, request_id,
                            error.original_error, extra=fields)
            elif code != "INTERNAL":  # the client's mistake: one line, no traceback
                log.info("%s in %s: %s", code, operation, message[:500], extra={**fields, "error": message[:500]})
            extensions["code"] = code
            if request_id:
                extensions["requestId"] = request_id
            rewritten.append(GraphQLError(message, nodes=error.nodes, source=error.source, positions=error.positions,
                                          path=error.path, extensions=extensions))
        result.errors = rewritten


def log_unexpected(errors: list[GraphQLError], execution: ExecutionContext | None) -> None:
    """Logs each unexpected error of ``errors`` with its traceback (expected ones are ErrorCodes' one line)."""
    context = execution.context if execution is not None else None
    request_id = getattr(context, "request_id", None)
    operation = ((execution.operation_name if execution is not None else None) or "anonymous")[:100]
    for error in errors:
        if classify(error, {})[0] == "INTERNAL":
            log.error("unexpected error in %s (request %s)", error.path, request_id, exc_info=error.original_error,
                      extra={"code": "INTERNAL", "request_id": request_id, "operation": operation,
                             "field": field_of(error)})


def classify(error: GraphQLError, extensions: dict[str, Any]) -> tuple[str, str]:
    """The code and the client's message of ``error`` (INTERNAL and a mask when unexpected)."""
    original = error.original_error
    if original is None:  # syntax and validation errors: safe to show
        return str(extensions.get("code", "GRAPHQL_VALIDATION_FAILED")), error.message
    if is_variable_error(error):  # a variable's value does not fit its type: rejected before any resolver
        return "INVALID_INPUT", error.message
    code = code_for(original)
    if code is None:
        return "INTERNAL", MASKED
    retry_after = getattr(original, "retry_after", None)  # RATE_LIMITED, OVERLOADED, UNAVAILABLE (circuit open)
    if isinstance(retry_after, int | float):
        extensions["retryAfter"] = ceil_seconds(retry_after, 3)
    return code, message_for(original)


def field_of(error: GraphQLError) -> str | None:
    return ".".join(str(part) for part in error.path) if error.path else None


def is_variable_error(error: GraphQLError) -> bool:
    """graphql-core's error for a variable value that cannot be coerced (NaN for a Float, an unknown enum value).

    It carries the inner coercion error as ``original_error`` (so it would otherwise be masked as INTERNAL), has no
    path (no field ran) and points at the variable's definition.
    """
    return (isinstance(error.original_error, GraphQLError) and error.path is None and bool(error.nodes)
            and all(isinstance(node, VariableDefinitionNode) for node in error.nodes or ()))


def is_expected(exc: BaseException) -> bool:
    return isinstance(exc, GraphmemError | pydantic.ValidationError) and code_for(exc) is not None
