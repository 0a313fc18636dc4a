"""MCP front end: graphmem as the memory of any MCP-speaking agent, over stdio and streamable HTTP.

A thin layer over the ScopedService GraphQL uses (no Cypher, no business logic):

    inputs.py     the tools' arguments (pydantic; their JSON schemas are the input schemas, with bounds)
    outputs.py    what the tools return (their JSON schemas are the output schemas)
    tools.py      the tool table: name, description, schemas, annotations and a handler each
    errors.py     failures as ``isError`` tool results with GraphQL's stable codes
    resources.py  memories as ``memory://<namespace>/<id>`` resources, and the ``use_memory`` prompt
    server.py     the SDK's low-level Server wired to them; per-call auth context and rate limit
    http.py       /mcp in the HTTP app: bearer auth, then the SDK's streamable HTTP transport
    runtime.py    ``graphmem mcp``: stdio, with the services ``graphmem serve`` builds
"""

TOKEN_ENV = "GRAPHMEM_MCP_TOKEN"  # noqa: S105 - the name of a variable, not a secret
"""The token ``graphmem mcp`` acts as (or ``--token``)."""
