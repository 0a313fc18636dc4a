"""The committed SDL (graphql/schema.graphql) is the schema the API serves, and the CLI prints it."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from graphmem.api.schema import schema
from graphmem.cli import cli

SDL = Path(__file__).resolve().parents[2] / "graphql" / "schema.graphql"
REGENERATE = "graphmem schema export --out graphql/schema.graphql"


def test_committed_sdl_matches_the_schema() -> None:
    assert SDL.is_file(), f"{SDL} is missing: run `{REGENERATE}`"
    committed = SDL.read_text(encoding="utf-8")
    current = schema.as_str() + "\n"
    if committed != current:
        old, new = committed.splitlines(), current.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        raise AssertionError(
            f"graphql/schema.graphql differs from the served schema (first at line {first + 1}: "
            f"committed {old[first] if first < len(old) else '<end>'!r}, "
            f"served {new[first] if first < len(new) else '<end>'!r}). Regenerate it with `{REGENERATE}`."
        )


def test_cli_exports_the_sdl(tmp_path: Path) -> None:
    runner = CliRunner()
    printed = runner.invoke(cli, ["schema", "export"])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == schema.as_str() + "\n"
    out = tmp_path / "nested" / "schema.graphql"
    written = runner.invoke(cli, ["schema", "export", "--out", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8") == schema.as_str() + "\n"
