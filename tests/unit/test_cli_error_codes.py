"""docs/errors.md lists every error code the API and the CLI can return."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from graphmem.cli.errors import USAGE

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "errors.md"
SOURCES = ["graphmem/errors.py", "graphmem/api/errors.py",
           *(p for p in ("graphmem/api/edge.py", "graphmem/api/app.py") if (ROOT / p).exists())]  # the HTTP edge
CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{5,}$")
NOT_CODES = {"GET", "POST"}
HTTP_EDGE = ["BAD_REQUEST", "METHOD_NOT_ALLOWED", "UNSUPPORTED_MEDIA_TYPE", "OVERLOADED"]


def codes_in(path: Path) -> set[str]:
    """Every string literal of the file that has the shape of a code (UPPER_SNAKE)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    return {text for text in found if CODE.fullmatch(text)} - NOT_CODES


def documented() -> set[str]:
    """The codes of the tables' first column."""
    return set(re.findall(r"^\| `([A-Z0-9_]+)` \|", DOC.read_text(encoding="utf-8"), flags=re.MULTILINE))


def test_the_sources_define_codes() -> None:
    codes = codes_in(ROOT / "graphmem/errors.py")
    assert {"INVALID_CONFIG", "SCHEMA_MISMATCH", "LOCAL_NEO4J", "UNAVAILABLE"} <= codes
    assert "GRAPHQL_VALIDATION_FAILED" in codes_in(ROOT / "graphmem/api/errors.py")


@pytest.mark.parametrize("source", SOURCES)
def test_every_code_of_the_source_is_documented(source: str) -> None:
    missing = codes_in(ROOT / source) - documented()
    assert not missing, f"{source} defines codes docs/errors.md does not list: {sorted(missing)}"


def test_the_cli_and_http_edge_codes_are_documented() -> None:
    assert {USAGE, *HTTP_EDGE} <= documented()
