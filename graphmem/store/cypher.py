"""Loads the parameterised Cypher statements kept in ``cypher/**/*.cypher``.

A file holds one statement, after a header of ``//`` comment lines that says its parameters and what it
returns. Statements are looked up by their path without the suffix, e.g. ``"memory/create"``. A test suite keeps its
own statements with itself and registers their folder (``register_folder("test", ...)``): they are never shipped.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import LiteralString

from graphmem.errors import ConfigError

_PACKAGED = Path(__file__).resolve().parent.parent / "cypher"  # wheels: force-included copy
_SOURCE = Path(__file__).resolve().parent.parent.parent / "cypher"  # editable install / repo checkout


_FOLDERS: dict[str, Path] = {}
"""Statement folders registered from outside the package (``register_folder``), by their first name part."""


def register_folder(prefix: str, path: Path) -> None:
    """Statements named ``<prefix>/...`` are read from ``path`` (a test suite's own statements)."""
    if not prefix or "/" in prefix or not path.is_dir():
        raise ConfigError(f"cannot register cypher folder {prefix!r} at {path}")
    _FOLDERS[prefix] = path.resolve()


def cypher_root() -> Path:
    for candidate in (_PACKAGED, _SOURCE):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"cypher directory not found (looked in {_PACKAGED} and {_SOURCE})")


def strip_comments(text: str) -> str:
    """Drop whole-line ``//`` comments and blank lines; keep everything else as written."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    kept = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith("//")]
    return "\n".join(kept).strip().removesuffix(";").strip()


class CypherLoader:
    """Reads statements from a directory, caching each one after the first read."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or cypher_root()

    def __call__(self, name: str) -> LiteralString:
        prefix, _, rest = name.partition("/")
        if prefix in _FOLDERS and rest:
            return _load(_FOLDERS[prefix], rest)
        return _load(self.root, name)

    def names(self, folder: str) -> list[str]:
        """Statement names in ``folder``, in file-name order (schema steps are numbered)."""
        base = self.root / folder
        if not base.is_dir():
            raise ConfigError(f"no cypher folder {folder!r} under {self.root}")
        return [f"{folder}/{p.stem}" for p in sorted(base.glob("*.cypher"))]


@lru_cache(maxsize=512)
def _load(root: Path, name: str) -> LiteralString:
    if ".." in Path(name).parts or Path(name).is_absolute():
        raise ConfigError(f"bad cypher statement name {name!r}")
    path = root / f"{name}.cypher"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"cypher statement {name!r} not found at {path}") from None
    statement = strip_comments(text)
    if not statement:
        raise ConfigError(f"cypher statement {name!r} ({path}) is empty")
    # Statements come from files in the repository, never from user input.
    return statement
