"""Failed tool calls as MCP tool results: ``isError`` with the stable code GraphQL gives the same failure.

The text block reads ``CODE: message`` (what a model sees); ``structuredContent.error`` carries ``code``,
``message`` and, for RATE_LIMITED, ``retry_after`` seconds (what a program reads). The codes and messages are
those of :mod:`graphmem.api.errors`; an unexpected failure is logged with its traceback and answered
``INTERNAL`` with the mask, never a stack trace.
"""

from __future__ import annotations

import logging
from typing import Any

from mcp.types import CallToolResult, TextContent

from graphmem.api.errors import MASKED, code_for, message_for
from graphmem.errors import RateLimitedError, ceil_seconds

log = logging.getLogger("graphmem.mcp")


def error_payload(exc: BaseException) -> dict[str, Any]:
    """``{"code", "message"[, "retry_after"]}`` of ``exc``; INTERNAL and the mask when it is unexpected."""
    code = code_for(exc)
    if code is None:
        return {"code": "INTERNAL", "message": MASKED}
    payload: dict[str, Any] = {"code": code, "message": message_for(exc)}
    if isinstance(exc, RateLimitedError):
        payload["retry_after"] = ceil_seconds(exc.retry_after, 3)  # rounded up: a wait is never 0
    return payload


def error_result(exc: BaseException, *, tool: str, principal: str | None) -> CallToolResult:
    """The tool result of a failed call (logged once: one line if expected, the traceback if not)."""
    payload = error_payload(exc)
    fields = {"code": payload["code"], "operation": tool, "principal": principal}
    if payload["code"] == "INTERNAL":
        log.error("unexpected error in MCP tool %s", tool, exc_info=exc, extra=fields)
    else:
        log.info("%s in MCP tool %s: %s", payload["code"], tool, str(exc)[:500], extra=fields)
    return CallToolResult(content=[TextContent(type="text", text=f"{payload['code']}: {payload['message']}")],
                          structured_content={"error": payload}, is_error=True)
