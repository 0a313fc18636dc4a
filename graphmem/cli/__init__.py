"""The ``graphmem`` command line: one module per command group; :func:`main` is the console entry point.

An expected failure prints one line, ``graphmem: error [CODE]: message``, on stderr and exits 1 (a command line
click cannot parse: code ``USAGE``, exit 2); an unexpected one keeps its traceback. The codes: docs/errors.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click
import pydantic

from graphmem import __version__
from graphmem.cli.browser import browser
from graphmem.cli.consolidate import consolidate
from graphmem.cli.db import db
from graphmem.cli.errors import EXIT_ERROR, USAGE, CommandError, error_line
from graphmem.cli.evaluation import eval_
from graphmem.cli.export import export
from graphmem.cli.importing import import_
from graphmem.cli.integrity import integrity
from graphmem.cli.lifecycle import lifecycle
from graphmem.cli.mcp import mcp
from graphmem.cli.neo4j_server import neo4j
from graphmem.cli.reflect import reflect
from graphmem.cli.schema import schema
from graphmem.cli.serve import serve
from graphmem.cli.token import token
from graphmem.errors import ConfigError, GraphmemError


@click.group()
@click.version_option(__version__, "--version", prog_name="graphmem", message="%(prog)s %(version)s")
def cli() -> None:
    """graphmem: graph memory for LLM agents."""


for _command in (neo4j, serve, db, import_, eval_, token, schema, reflect, mcp, integrity, lifecycle, export,
                 consolidate, browser):
    cli.add_command(_command)


def _settings_error(exc: pydantic.ValidationError) -> ConfigError:
    first = exc.errors()[0]
    setting = "GRAPHMEM_" + "_".join(str(p) for p in first["loc"]).upper()
    return ConfigError(f"{setting}: {first['msg']} (got {first.get('input')!r})")


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line (``argv``: default sys.argv[1:]) and exit with its status."""
    try:
        status = cli.main(args=None if argv is None else list(argv), prog_name="graphmem", standalone_mode=False)
    except GraphmemError as exc:
        click.echo(error_line(exc.code, str(exc)), err=True)
        sys.exit(EXIT_ERROR)
    except pydantic.ValidationError as exc:
        if exc.title != "Settings":  # bad input elsewhere is graphmem's own ValidationError: this is a bug
            raise
        error = _settings_error(exc)
        click.echo(error_line(error.code, str(error)), err=True)
        sys.exit(EXIT_ERROR)
    except CommandError as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        where = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        click.echo(error_line(USAGE, exc.format_message() + where), err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:  # click's others: a file it could not open
        click.echo(error_line("INVALID_INPUT", exc.format_message()), err=True)
        sys.exit(exc.exit_code)
    except click.Abort:  # Ctrl-C or end of input at a prompt
        click.echo("graphmem: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:  # `graphmem token list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_ERROR)
    sys.exit(status if isinstance(status, int) else 0)


__all__ = ["cli", "main"]
