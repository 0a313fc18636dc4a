"""``graphmem neo4j``: fetch, start, stop and inspect the local Neo4j server (no Docker needed)."""

from __future__ import annotations

import sys

import click

from graphmem.config import NEO4J_VERSION, Settings
from graphmem.neo4j_local import LocalNeo4j


def _human(size: int) -> str:
    return f"{size / 1_048_576:.1f} MiB"


@click.group()
def neo4j() -> None:
    """Fetch, start, stop and inspect the local Neo4j server (no Docker needed)."""


@neo4j.command("fetch")
def neo4j_fetch() -> None:
    """Download the Neo4j Community jars from Maven Central into the cache (once)."""
    result = LocalNeo4j(Settings()).fetch()
    state = "cached" if result.cached else "fetched"
    click.echo(f"Neo4j {NEO4J_VERSION} {state}: {result.jars} jars, {_human(result.bytes)} "
               f"in {result.seconds:.1f}s at {result.lib_dir}")


@neo4j.command("start")
@click.option("--no-auth", is_flag=True, help="Run with authentication off (tests only).")
def neo4j_start(no_auth: bool) -> None:
    """Start the server in the background and wait until Bolt answers; applies the schema."""
    from graphmem.store.admin import wait_ready

    settings = Settings()
    server = LocalNeo4j(settings, auth=not no_auth)
    if (running := server.status()).running:
        click.echo(f"Neo4j already running (pid {running.pid}): {running.bolt_uri}, {running.browser_url}")
        return
    server.fetch()
    status = server.start(ready=lambda: wait_ready(settings, auth=not no_auth, uri=server.bolt_uri))
    click.echo(f"Neo4j {NEO4J_VERSION} running (pid {status.pid})\n  bolt:    {status.bolt_uri}\n"
               f"  browser: {status.browser_url}")


@neo4j.command("stop")
def neo4j_stop() -> None:
    """Stop the server started by ``graphmem neo4j start``."""
    stopped = LocalNeo4j(Settings()).stop()
    click.echo("stopped" if stopped else "not running")


@neo4j.command("status")
def neo4j_status() -> None:
    """Say whether the local server runs; exit 1 when it does not."""
    status = LocalNeo4j(Settings()).status()
    if status.running:
        click.echo(f"running (pid {status.pid}) bolt={status.bolt_uri} browser={status.browser_url}")
    else:
        click.echo("not running")
        sys.exit(1)
