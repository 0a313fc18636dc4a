"""The MCP server (the SDK's low-level ``Server``): tools, memory resources and the prompt, over any transport.

Every tool call, resource read and listing of memories is one request of the caller: it spends one token of the
caller's rate-limit bucket (the bucket GraphQL spends too), then runs on a ScopedService built for the caller's
principal, exactly as a GraphQL request does. Who the caller is comes from the transport (``CallerOf``): the
bearer token of the HTTP request that carried the message, or the token ``graphmem mcp`` was started with.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pydantic
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    TextContent,
)

from graphmem import __version__
from graphmem.errors import GraphmemError
from graphmem.mcp import resources
from graphmem.mcp.errors import error_payload, error_result
from graphmem.mcp.tools import BY_NAME, TOOLS
from graphmem.security import Principal
from graphmem.service.scoped import ScopedService

if TYPE_CHECKING:
    from graphmem.api.app import AppState

log = logging.getLogger("graphmem.mcp")
Ctx = ServerRequestContext[Any, Any]


@dataclass(frozen=True)
class Caller:
    """Who sends a message and the services it runs on."""

    principal: Principal
    state: AppState

    def service(self) -> ScopedService:
        s = self.state
        return ScopedService(self.principal, s.memory, s.retrieval, s.browse,
                             shared_namespace=s.settings.shared_namespace, reflection=s.reflection,
                             consolidator=s.consolidator)

    def admit(self) -> None:
        """Spend one request of the caller's rate limit (RateLimitedError when none is left)."""
        self.state.limiter.check(self.principal.name)


CallerOf = Callable[[Ctx], Caller]


def structured(result: pydantic.BaseModel) -> CallToolResult:
    content = result.model_dump(mode="json")
    text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=content)


def protocol_error(exc: BaseException) -> MCPError:
    """A failed resource read or prompt as a JSON-RPC error; ``data.code`` is the stable code."""
    payload = error_payload(exc)
    return MCPError(code=INVALID_PARAMS, message=f"{payload['code']}: {payload['message']}", data=payload)


def build_server(caller_of: CallerOf) -> Server[Any]:
    every = ListToolsResult(tools=[t.tool() for t in TOOLS])
    usual = ListToolsResult(tools=[t.tool() for t in TOOLS if not t.admin_only])

    async def list_tools(ctx: Ctx, params: PaginatedRequestParams | None) -> ListToolsResult:
        """The tools the caller's token may use: an admin-only tool is not offered to other tokens, so that an
        agent does not plan with a tool that can only refuse it."""
        return every if caller_of(ctx).principal.admin else usual

    async def call_tool(ctx: Ctx, params: CallToolRequestParams) -> CallToolResult:
        spec = BY_NAME.get(params.name)
        if spec is None:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown tool {params.name[:64]!r}")
        principal: str | None = None
        try:
            caller = caller_of(ctx)
            principal = caller.principal.name
            caller.admit()
            args = spec.args.model_validate(params.arguments or {})
            return structured(await spec.handler(caller.service(), caller.principal, args))
        except Exception as exc:  # noqa: BLE001 - the boundary: every failure is a coded result, logged there
            return error_result(exc, tool=spec.name, principal=principal)

    async def list_templates(ctx: Ctx, params: PaginatedRequestParams | None) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[resources.TEMPLATE])

    async def list_resources(ctx: Ctx, params: PaginatedRequestParams | None) -> ListResourcesResult:
        caller = caller_of(ctx)
        try:
            caller.admit()
            namespaces = () if caller.principal.admin else caller.principal.readable(None)
            return ListResourcesResult(resources=await resources.listed(caller.service(), namespaces))
        except (GraphmemError, pydantic.ValidationError) as exc:
            raise protocol_error(exc) from None

    async def read_resource(ctx: Ctx, params: ReadResourceRequestParams) -> ReadResourceResult:
        caller = caller_of(ctx)
        try:
            caller.admit()
            return ReadResourceResult(contents=[await resources.read(caller.service(), str(params.uri))])
        except (GraphmemError, pydantic.ValidationError) as exc:
            raise protocol_error(exc) from None

    async def list_prompts(ctx: Ctx, params: PaginatedRequestParams | None) -> ListPromptsResult:
        return ListPromptsResult(prompts=[resources.PROMPT])

    async def get_prompt(ctx: Ctx, params: GetPromptRequestParams) -> GetPromptResult:
        if params.name != resources.PROMPT_NAME:
            raise MCPError(code=INVALID_PARAMS, message=f"unknown prompt {params.name[:64]!r}")
        return resources.prompt(params.arguments)

    return Server(
        "graphmem", version=__version__, title="graphmem memory",
        description="Graph memory for LLM agents on Neo4j: search, write, relate, tasks and reflection.",
        instructions=resources.INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
        on_list_resources=list_resources, on_list_resource_templates=list_templates,
        on_read_resource=read_resource, on_list_prompts=list_prompts, on_get_prompt=get_prompt)
