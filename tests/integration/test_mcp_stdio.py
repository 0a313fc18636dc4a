"""``graphmem mcp`` over stdio: the SDK's real client spawns the command (env pointing at the test Neo4j) and
drives the same flows as over HTTP; a bad token is one error line and a non-zero exit."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

from graphmem.config import Settings
from graphmem.security import make_entry, new_token
from tests.integration.api_support import api_settings, fresh_namespaces, make_tokens, wipe
from tests.integration.mcp_support import (
    check_tools,
    data,
    forbidden_flow,
    memory_flow,
    stdio_client,
    stdio_env,
    task_flow,
)


async def test_stdio_session_flows_and_access(migrated: Settings) -> None:
    ns_a, ns_b, shared = fresh_namespaces()
    tokens, entries = make_tokens(ns_a, ns_b)
    settings = api_settings(migrated, entries, shared=shared)
    mark = f"osprey{uuid.uuid4().hex[:8]}"
    try:
        async with stdio_client(settings, tokens.a) as client:
            await check_tools(client)
            ids = await memory_flow(client, ns_a, mark)
            await task_flow(client, ns_a)
            listed = await client.list_resources()
            assert {f"memory://{ns_a}/{i}" for i in ids} <= {str(r.uri) for r in listed.resources}
        async with stdio_client(settings, tokens.b) as other:
            await forbidden_flow(other, ns_a, ids, mark)
            mine = data(await other.call_tool("memory_stats", {}))
            assert mine["namespace"] == ns_b
    finally:
        await wipe(migrated, ns_a, ns_b, shared)


def test_a_wrong_token_is_one_error_line(migrated: Settings) -> None:
    _, digest = new_token()
    settings = api_settings(migrated, [make_entry("someone", digest, write=["x"])], shared="s")
    env = stdio_env(settings, "gm_wrong-token")
    command = str(Path(sys.executable).parent / "graphmem")
    done = subprocess.run([command, "mcp"], env=env, input=b"", capture_output=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stdout == b""  # nothing on the protocol's stream
    assert done.stderr.decode().strip() == "graphmem: error [UNAUTHENTICATED]: invalid token"


def test_an_unreachable_neo4j_is_one_error_line(migrated: Settings) -> None:
    token, digest = new_token()
    settings = api_settings(migrated, [make_entry("someone", digest, write=["x"])], shared="s")
    env = {**stdio_env(settings, token), "GRAPHMEM_NEO4J_URI": "bolt://127.0.0.1:1"}
    command = str(Path(sys.executable).parent / "graphmem")
    done = subprocess.run([command, "mcp"], env=env, input=b"", capture_output=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode().startswith("graphmem: error [UNAVAILABLE]: connect: Neo4j is unavailable")
