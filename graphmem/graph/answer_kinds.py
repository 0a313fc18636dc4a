"""The kinds of answer a memory holds (pure): computed once at write and stored as its ``answer_kinds`` property.

A memory that names a place ("John: I was in Chicago last week"), a title (a capitalised thing, or anything in
quotes: "The Name of the Wind") or a number ("three turtles") can answer a question that asks for one
(``retrieval.answertype``, the ranking's answer-type term). The entities come from the offline extractor over the
whole content, the extraction the write's graph construction makes (``graph.entities.entities_in``: one
extraction per memory, not two); its speaker ("John:") is not a title it holds. Quotes and numbers are read in
what follows the speaker's colon.

Stored as strings ``"kind:name"`` (``"place:chicago"``; a quoted title and a number with an empty name:
``"title:"``, ``"number:"``): a list property Neo4j Browser shows as it is. A memory written before the property
existed has none; the search computes its kinds from the content then (``held_kinds`` is memoised), and
``graphmem db rebuild-graph`` stores them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphmem.graph.entities import entities_in
from graphmem.graph.speaker import split_speaker

__all__ = ["ENTITY_LIMIT", "held_kinds", "kind_name"]

ENTITY_LIMIT = 8
"""Entities read per memory: the write's ``GraphOptions.entity_limit`` default, so both read one extraction."""

_HOLDS_NUMBER = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|once|several"
                           r"|couple)\b", re.I)
_QUOTED = re.compile(r"[\"\u201c][^\"\u201c\u201d]{2,}[\"\u201d]")
_CACHE = 16384


@lru_cache(maxsize=_CACHE)
def held_kinds(content: str) -> tuple[str, ...]:
    """``"kind:name"`` of what the memory holds that could answer, sorted: capitalised places and things the
    extractor finds ("place:chicago", "title:the name of the wind"), other than its speaker; ``"title:"`` when it
    quotes something; ``"number:"`` when it holds a number."""
    speaker, body = split_speaker(content)
    out: set[str] = set()
    for e in entities_in(content, ENTITY_LIMIT):
        if e.surface[:1].isupper() and e.kind in ("place", "thing") and e.surface.lower() != speaker:
            out.add(f"{'place' if e.kind == 'place' else 'title'}:{e.name}")
    if _QUOTED.search(body):
        out.add("title:")
    if _HOLDS_NUMBER.search(body):
        out.add("number:")
    return tuple(sorted(out))


def kind_name(held: str) -> tuple[str, str]:
    """``("place", "chicago")`` of ``"place:chicago"`` (the kind has no colon; a name may)."""
    kind, _, name = held.partition(":")
    return kind, name
