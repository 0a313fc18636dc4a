"""Memory drafts from JSON Lines: one ``MemoryDraft`` object per line.

Blank lines and lines starting with ``#`` are skipped. A line that is not a JSON object, names a field
``MemoryDraft`` does not have, or holds an invalid value raises ``ValidationError`` whose ``item`` is the
1-based line number; nothing is returned then (a file is accepted whole or not at all).
"""

from __future__ import annotations

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
    """``parse_jsonl`` over a UTF-8 file."""
    with Path(path).open(encoding="utf-8") as fh:
        return parse_jsonl(fh, default_namespace=default_namespace)


def _parse_line(text: str, number: int, default_namespace: str | None) -> MemoryDraft:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"invalid JSON: {exc.msg} (column {exc.colno})", item=number) from None
    if not isinstance(data, dict):
        raise ValidationError(f"expected a JSON object, got {type(data).__name__}", item=number)
    unknown = sorted(set(data) - set(MemoryDraft.model_fields))
    if unknown:
        names = ", ".join(repr(u) for u in unknown)
        raise ValidationError(f"unknown field(s) {names}", item=number, field=unknown[0])
    if "namespace" not in data and default_namespace is not None:
        data["namespace"] = default_namespace
    try:
        return MemoryDraft.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = [(".".join(str(p) for p in e["loc"]) or "line", e["msg"]) for e in exc.errors()]
        message = "; ".join(f"{loc}: {msg}" for loc, msg in problems)
        raise ValidationError(message, item=number, field=problems[0][0]) from None
