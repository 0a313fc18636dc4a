"""Tolerant JSON extraction from LLM output, then strict validation (pure)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pydantic

from graphmem.errors import LLMOutputError

M = TypeVar("M", bound=pydantic.BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SPECIAL = re.compile(r'["\\{}\[\]]')
"""The characters a bracket scan acts on; the rest only matter after a backslash inside a string."""
_OUT, _IN, _ESCAPED = "out", "in", "escaped"
_KIND = {"}": "{", "]": "["}


def extract_json(text: str) -> Any:
    """The first JSON object (or array) in ``text``: code fences, prose around it and trailing commas are
    tolerated. Raises LLMOutputError when there is none.

    In each fenced block, then in the whole text, the first opening bracket whose brackets balance is parsed
    (without its trailing commas if need be); when that does not parse, the next block is tried. Every bracket's
    closer is found in one pass (``_closers``): an answer of many unbalanced brackets takes linear time."""
    if not text or not text.strip():
        raise LLMOutputError("the model returned an empty answer")
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        closers = _closers(chunk)
        if not closers:
            continue
        start = min(closers)
        body = chunk[start:closers[start] + 1]
        for attempt in (body, _TRAILING_COMMA.sub(r"\1", body)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError:
                continue
    raise LLMOutputError(f"no JSON object in the model's answer: {text[:200]!r}")


@dataclass(eq=False, slots=True)
class _Scan:
    """A scan of the text from an opening bracket: it counts the brackets of each kind outside the strings it
    sees. Where two scans meet in the same string state they see the rest alike, and become one."""

    state: str = _OUT
    depth: dict[str, int] = field(default_factory=lambda: {"{": 0, "[": 0})
    waiting: dict[str, dict[int, list[int]]] = field(default_factory=lambda: {"{": {}, "[": {}})
    """Per kind, a depth: the openers that close when the count of their kind falls back to it."""
    open: int = 0

    def step(self, ch: str, at: int, closers: dict[int, int]) -> None:
        if self.state == _ESCAPED:
            self.state = _IN
        elif self.state == _IN:
            self.state = _ESCAPED if ch == "\\" else _OUT if ch == '"' else _IN
        elif ch == '"':
            self.state = _IN
        elif ch in "{[":
            self.waiting[ch].setdefault(self.depth[ch], []).append(at)
            self.depth[ch] += 1
            self.open += 1
        elif ch in "}]":
            kind = _KIND[ch]
            self.depth[kind] -= 1
            for start in self.waiting[kind].pop(self.depth[kind], []):
                closers[start] = at
                self.open -= 1

    def absorb(self, other: _Scan) -> None:
        """Take over the openers still open in ``other``, a scan in the same state from here on."""
        for kind, waiting in self.waiting.items():
            shift = self.depth[kind] - other.depth[kind]
            for depth, starts in other.waiting[kind].items():
                waiting.setdefault(depth + shift, []).extend(starts)
        self.open += other.open


def _closers(chunk: str) -> dict[int, int]:
    """For each opening bracket of ``chunk`` that a scan from it sees balanced: the index of its closer. At most
    three scans (one per string state: outside, inside, after a backslash) are alive at once, each opener joins
    the one outside strings there, and a merge moves the smaller scan's open brackets: linear time."""
    closers: dict[int, int] = {}
    scans: list[_Scan] = []
    last = -2
    for match in _SPECIAL.finditer(chunk):
        at = match.start()
        ch = chunk[at]
        if at > last + 1:  # a backslash inside a string escaped the plain character after it
            for scan in scans:
                if scan.state == _ESCAPED:
                    scan.state = _IN
        last = at
        if ch in "{[" and not any(scan.state == _OUT for scan in scans):
            scans.append(_Scan())
        for scan in scans:
            scan.step(ch, at, closers)
        scans = _merged(scans)
    return closers


def _merged(scans: list[_Scan]) -> list[_Scan]:
    """The scans with open brackets (one that has none is dropped: a later opener starts afresh), one per state."""
    kept: list[_Scan] = []
    for scan in scans:
        if not scan.open:
            continue
        for i, other in enumerate(kept):
            if other.state == scan.state:  # the smaller one's open brackets move
                big, small = (scan, other) if scan.open > other.open else (other, scan)
                big.absorb(small)
                kept[i] = big
                break
        else:
            kept.append(scan)
    return kept


def parse_output(text: str, model: type[M]) -> M:
    """Extract JSON from ``text`` and validate it strictly against ``model``."""
    data = extract_json(text)
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
        raise LLMOutputError(f"the model's JSON does not fit {model.__name__}: {problems}") from None
