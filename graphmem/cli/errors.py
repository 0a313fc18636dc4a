"""How the command line reports an expected failure: one line ``graphmem: error [CODE]: message`` on stderr.

Expected failures are :class:`graphmem.errors.GraphmemError` (its ``code``), click's usage errors (``USAGE``) and
:class:`CommandError`; they exit 1 (usage errors 2). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from typing import IO, Any

import click

from graphmem.errors import GraphmemError

USAGE = "USAGE"
"""The code of a command line that click cannot parse (an unknown option, a missing argument)."""
EXIT_ERROR = 1
EXIT_USAGE = 2


def error_line(code: str, message: str) -> str:
    """``graphmem: error [CODE]: message``; a message's further lines (a Neo4j log tail) follow it, indented."""
    first, _, details = message.strip().partition("\n")
    line = f"graphmem: error [{code}]: {first}"
    if details:
        line += "\n" + "\n".join(f"  {d}" for d in details.splitlines())
    return line


class CommandError(click.ClickException):
    """An expected failure of one command, shown as the error line (under click's CliRunner too)."""

    exit_code = EXIT_ERROR

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code

    @classmethod
    def of(cls, exc: GraphmemError) -> CommandError:
        return cls(exc.code, str(exc))

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(error_line(self.code, self.format_message()), file=file, err=True)
