"""Tolerant JSON extraction from LLM output, then strict validation (pure)."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import pydantic

from graphmem.errors import LLMOutputError

M = TypeVar("M", bound=pydantic.BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def extract_json(text: str) -> Any:
    """The first JSON object (or array) in ``text``: code fences, prose around it and trailing commas are
    tolerated. Raises LLMOutputError when there is none."""
    if not text or not text.strip():
        raise LLMOutputError("the model returned an empty answer")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        for start, opener in ((i, c) for i, c in enumerate(chunk) if c in "{["):
            closer = "}" if opener == "{" else "]"
            end = _matching(chunk, start, opener, closer)
            if end is None:
                continue
            body = chunk[start:end + 1]
            for attempt in (body, _TRAILING_COMMA.sub(r"\1", body)):
                try:
                    return json.loads(attempt)
                except json.JSONDecodeError:
                    continue
            break  # the first balanced block did not parse; try the next chunk
    raise LLMOutputError(f"no JSON object in the model's answer: {text[:200]!r}")


def _matching(text: str, start: int, opener: str, closer: str) -> int | None:
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return i
    return None


def parse_output(text: str, model: type[M]) -> M:
    """Extract JSON from ``text`` and validate it strictly against ``model``."""
    data = extract_json(text)
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise LLMOutputError(f"the model's JSON does not fit {model.__name__}: {problems}") from None
