"""The answer-type term (pure): a memory that holds the kind of thing the question asks for.

"Which cities has John been to?" asks for places, "What books has Tim read?" for titles, "How many turtles does
Nate have?" for a number. A turn that names a place, a title or a number the question does not name itself
("John: I was in Chicago, it was awesome!") is more likely an answer than one that only shares the question's
words ("Tim: Exploring new cities is always so much fun"). It is the classic answer-type feature of question
answering, with no model: the question's kind comes from its wording (``asked_kinds``), the memory's from the
offline entity extractor (``graph.entities``: a capitalised place, a capitalised thing or a quoted title) and a
number pattern (``held_kinds``).

The ranking adds ``FormulaWeights.answer`` (times the writer's trust) to the candidates the search statement
returned when the query asks a kind and the memory holds one (``answers``), before the context stage; so it reorders
what the statement found and costs nothing for a query that asks no kind. On LoCoMo (leave-one-conversation-out,
``benchmarks/README.md``, "answer-type term") it lifts multi-hop recall@10 most: the evidence of "Which cities
has John been to?" is spread over sessions, one city a turn.

A memory's kinds are computed once per content (a bounded cache): the extractor takes ~0.25 ms a text.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from collections.abc import Set as AbstractSet
from functools import lru_cache

from graphmem.graph.entities import extract_entities
from graphmem.retrieval.formula import split_speaker

__all__ = ["KINDS", "answers", "asked_kinds", "held_kinds", "name_words"]

KINDS = ("place", "title", "number")

_PLACE = re.compile(r"^\s*where\b|\b(?:where|which|what)\b.*\b(?:cit(?:y|ies)|countr(?:y|ies)|states?|places?"
                    r"|locations?|areas?|destinations?|regions?)\b", re.I)
_TITLE = re.compile(r"\b(?:books?|movies?|films?|shows?|series|games?|songs?|albums?|novels?|authors?|artists?"
                    r"|bands?)\b", re.I)
_NUMBER = re.compile(r"^\s*how (?:many|much|often|long)\b", re.I)
_HOLDS_NUMBER = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|once|several"
                           r"|couple)\b", re.I)
_QUOTED = re.compile(r"[\"\u201c][^\"\u201c\u201d]{2,}[\"\u201d]")
_WORD = re.compile(r"[a-z0-9]+")
_CACHE = 16384


def asked_kinds(query: str) -> frozenset[str]:
    """The kinds of answer the question asks for: ``place`` ("where", "which cities"), ``title`` (books, movies,
    games, songs, authors, bands) and ``number`` ("how many", "how often"); none for most questions."""
    kinds = set()
    if _PLACE.search(query):
        kinds.add("place")
    if _TITLE.search(query):
        kinds.add("title")
    if _NUMBER.search(query):
        kinds.add("number")
    return frozenset(kinds)


def name_words(text: str) -> frozenset[str]:
    """Lowercase words, for telling whether the question names a memory's entity itself."""
    return frozenset(_WORD.findall(text.lower()))


@lru_cache(maxsize=_CACHE)
def held_kinds(content: str) -> tuple[tuple[str, str], ...]:
    """``(kind, name)`` of what the memory holds that could answer: capitalised places and things the extractor
    finds ("Chicago", "The Name of the Wind"), quoted titles and numbers (the last two with an empty name). Its
    speaker's opening ("John: ...") is not read."""
    _, body = split_speaker(content)
    out: set[tuple[str, str]] = set()
    for e in extract_entities(body, limit=8):
        if e.surface[:1].isupper() and e.kind in ("place", "thing"):
            out.add(("place" if e.kind == "place" else "title", e.name))
    if _QUOTED.search(body):
        out.add(("title", ""))
    if _HOLDS_NUMBER.search(body):
        out.add(("number", ""))
    return tuple(sorted(out))


def answers(content: str | None, kinds: Collection[str], named: AbstractSet[str]) -> bool:
    """Whether ``content`` holds one of the ``kinds`` asked, other than an entity whose words the question names
    (``named``: ``name_words`` of the question)."""
    if not kinds or not content:
        return False
    return any(kind in kinds and (not name or not name_words(name) <= named)
               for kind, name in held_kinds(content))
