"""``graphmem mcp``: graphmem as an MCP server over stdio (what Claude Desktop, Cursor and VS Code launch)."""

from __future__ import annotations

import asyncio
import contextlib

import click

from graphmem.config import Settings
from graphmem.mcp import TOKEN_ENV


@click.command(epilog="Over HTTP, `graphmem serve` serves the same tools at http://HOST:PORT/mcp (streamable "
                      "HTTP, 'Authorization: Bearer <token>'). Client configs: README.md, section MCP.")
@click.option("--token", envvar=TOKEN_ENV, default=None, show_envvar=True,
              help="The bearer token the session acts as (its namespaces decide what the tools may read and "
                   "write); prefer the environment variable, which other users cannot see in `ps`.")
def mcp(token: str | None) -> None:
    """Serve the MCP tools, memory resources and prompt over stdio (JSON-RPC on stdin/stdout).

    Connects Neo4j, checks the schema and loads the embedder like `graphmem serve` (GRAPHMEM_* settings); logs
    go to stderr. GRAPHMEM_SIGNING_KEYS is required, and must hold the key that signed the memories (the one the
    HTTP server and the importer use): under another key every memory fails verification and is hidden (searches
    return nothing, reads say NOT_FOUND; only a warning on stderr says why). 14 tools: memory_search,
    memory_write, memory_get, memory_update, memory_delete, memory_restore, memory_relate, memory_neighborhood,
    task_start, task_log, task_end, memory_reflect, memory_stats, memory_consolidate (admin tokens only).
    """
    from graphmem.mcp.runtime import serve_stdio

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_stdio(Settings(), token))
