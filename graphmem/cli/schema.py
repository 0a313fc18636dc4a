"""``graphmem schema``: the GraphQL schema."""

from __future__ import annotations

import click


@click.group()
def schema() -> None:
    """The GraphQL schema."""


@schema.command("export")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write the SDL to this file (e.g. graphql/schema.graphql) instead of stdout.")
def schema_export(out: str | None) -> None:
    """Print the GraphQL SDL of the API (what graphql/schema.graphql must hold; tests/unit/test_sdl.py checks)."""
    from pathlib import Path

    from graphmem.api.schema import schema as api_schema

    sdl = api_schema.as_str() + "\n"
    if out is None:
        click.echo(sdl, nl=False)
        return
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(sdl, encoding="utf-8")
    click.echo(f"schema written to {out}", err=True)
