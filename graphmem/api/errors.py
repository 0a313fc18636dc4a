"""Expected failures carry a stable ``extensions.code``; unexpected ones are masked and logged."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pydantic
from strawberry.extensions import SchemaExtension

from graphmem.errors import (
    ConflictError,
    EmbeddingError,
    ForbiddenError,
    GraphmemError,
    LLMError,
    NotFoundError,
    RateLimitedError,
    StoreUnavailableError,
    UnauthenticatedError,
    ValidationError,
)
from graphql import GraphQLError, VariableDefinitionNode

log = logging.getLogger("graphmem.api")

CODES: tuple[tuple[type[Exception], str], ...] = (
    (NotFoundError, "NOT_FOUND"), (ForbiddenError, "FORBIDDEN"), (UnauthenticatedError, "UNAUTHENTICATED"),
    (ValidationError, "INVALID_INPUT"), (pydantic.ValidationError, "INVALID_INPUT"), (ConflictError, "CONFLICT"),
    (RateLimitedError, "RATE_LIMITED"), (StoreUnavailableError, "UNAVAILABLE"), (LLMError, "UNAVAILABLE"),
    (EmbeddingError, "UNAVAILABLE"),
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
    """Rewrites every error of a result: a code for the expected ones, a mask for the rest."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if result is None or not getattr(result, "errors", None):
            return
        context = self.execution_context.context
        request_id = getattr(context, "request_id", None) if context is not None else None
        rewritten: list[GraphQLError] = []
        for error in result.errors or []:
            original = error.original_error
            extensions = dict(error.extensions or {})
            if original is None:  # syntax and validation errors: safe to show
                extensions.setdefault("code", "GRAPHQL_VALIDATION_FAILED")
                message = error.message
            elif is_variable_error(error):  # a variable's value does not fit its type: rejected before any resolver
                extensions["code"] = "INVALID_INPUT"
                message = error.message
            elif (code := code_for(original)) is not None:
                extensions["code"] = code
                message = message_for(original)
                if isinstance(original, RateLimitedError):
                    extensions["retryAfter"] = round(original.retry_after, 3)
                if isinstance(original, StoreUnavailableError):
                    log.warning("store unavailable in %s (request %s): %s", error.path, request_id, original)
            else:
                log.error("unexpected error in %s (request %s)", error.path, request_id, exc_info=original)
                extensions["code"] = "INTERNAL"
                message = MASKED
            if request_id:
                extensions["requestId"] = request_id
            rewritten.append(GraphQLError(message, nodes=error.nodes, source=error.source, positions=error.positions,
                                          path=error.path, extensions=extensions))
        result.errors = rewritten


def is_variable_error(error: GraphQLError) -> bool:
    """graphql-core's error for a variable value that cannot be coerced (NaN for a Float, an unknown enum value).

    It carries the inner coercion error as ``original_error`` (so it would otherwise be masked as INTERNAL), has no
    path (no field ran) and points at the variable's definition.
    """
    return (isinstance(error.original_error, GraphQLError) and error.path is None and bool(error.nodes)
            and all(isinstance(node, VariableDefinitionNode) for node in error.nodes or ()))


def is_expected(exc: BaseException) -> bool:
    return isinstance(exc, GraphmemError | pydantic.ValidationError) and code_for(exc) is not None
