"""Memory drafts from JSON Lines: one ``MemoryDraft`` object per line.

Blank lines and lines starting with ``#`` are skipped. A line that is not a JSON object, names a field
``MemoryDraft`` does not have, or holds an invalid value raises ``ValidationError`` (``line N: ...``, its ``item``
the 1-based line number); nothing is returned then (a file is accepted whole or not at all). A file is UTF-8, a
byte order mark at its start allowed; one that is not is refused naming the byte offset of the first bad byte.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable
from pathlib import Path

import pydantic

from graphmem.errors import ValidationError
from graphmem.models import MemoryDraft, check_namespace

__all__ = ["parse_jsonl", "read_jsonl"]


def parse_jsonl(lines: Iterable[str], *, default_namespace: str | None = None) -> list[MemoryDraft]:
    """The drafts of ``lines``; ``default_namespace`` fills in a line's missing ``namespace``."""
    if default_namespace is not None:
        try:
            check_namespace(default_namespace)
        except ValueError as exc:
            raise ValidationError(f"default namespace: {exc}", field="namespace") from None
    drafts: list[MemoryDraft] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        drafts.append(_parse_line(text, number, default_namespace))
    return drafts


def read_jsonl(path: str | Path, *, default_namespace: str | None = None) -> list[MemoryDraft]:
    """``parse_jsonl`` over a UTF-8 file (a leading byte order mark is skipped); errors name the file."""
    data = Path(path).read_bytes()
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        line = data.count(b"\n", 0, offset) + 1
        raise ValidationError(f"{path}: not UTF-8 text: byte offset {offset} (line {line}): 0x{data[offset]:02x} "
                              f"({exc.reason}); save the file as UTF-8") from None
    try:
        # split on newlines only: str.splitlines would also split inside a JSON string holding U+2028 or U+0085
        return parse_jsonl(text.split("\n"), default_namespace=default_namespace)
    except ValidationError as exc:
        if exc.item is None:  # the default namespace, not the file
            raise
        raise _error(f"{path}: {exc}", exc.item, exc.field) from None


def _error(message: str, number: int | None, field: str | None = None) -> ValidationError:
    error = ValidationError(message, field=field)
    error.item = number
    return error


def _line_error(number: int, message: str, field: str | None = None) -> ValidationError:
    """``line N: message``, with ``item`` = N (``ValidationError(item=N)`` would say "item N", a batch's word)."""
    return _error(f"line {number}: {message}", number, field)


def _parse_line(text: str, number: int, default_namespace: str | None) -> MemoryDraft:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _line_error(number, f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise _line_error(number, f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(MemoryDraft.model_fields))
    if unknown:
        names = ", ".join(repr(u) for u in unknown)
        raise _line_error(number, f"unknown field(s) {names}", unknown[0])
    if "namespace" not in data and default_namespace is not None:
        data["namespace"] = default_namespace
    try:
        return MemoryDraft.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = [(".".join(str(p) for p in e["loc"]) or "line", e["msg"]) for e in exc.errors()]
        message = "; ".join(f"{loc}: {msg}" for loc, msg in problems)
        raise _line_error(number, message, problems[0][0]) from None
