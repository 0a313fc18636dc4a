"""The answer-type term (pure): a memory that holds the kind of thing the question asks for.

"Which cities has John been to?" asks for places, "What books has Tim read?" for titles, "How many turtles does
Nate have?" for a number. A turn that names a place, a title or a number the question does not name itself
("John: I was in Chicago, it was awesome!") is more likely an answer than one that only shares the question's
words ("Tim: Exploring new cities is always so much fun"). It is the classic answer-type feature of question
answering, with no model: the question's kind comes from its wording (``asked_kinds``), the memory's from the
offline entity extractor (a capitalised place, a capitalised thing or a quoted title) and a number pattern,
computed at write and stored on the memory (``graph.answer_kinds``; from its content for a memory written before).

The ranking adds ``FormulaWeights.answer`` (times the writer's trust) to the candidates the search statement
returned when the query asks a kind and the memory holds one (``answers``), before the context stage; so it reorders
what the statement found and costs nothing for a query that asks no kind. On LoCoMo (leave-one-conversation-out,
``benchmarks/README.md``, "answer-type term") it lifts multi-hop recall@10 most: the evidence of "Which cities
has John been to?" is spread over sessions, one city a turn.

A memory written with its ``answer_kinds`` costs the search nothing to read; one written before them costs the
extractor's ~0.25 ms once (a bounded cache), until ``graphmem db rebuild-graph`` stores them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from collections.abc import Set as AbstractSet

from graphmem.graph.answer_kinds import held_kinds, kind_name

__all__ = ["answers", "asked_kinds", "kinds_of", "name_words"]

_PLACE = re.compile(r"^\s*where\b|\b(?:where|which|what)\b.*\b(?:cit(?:y|ies)|countr(?:y|ies)|states?|places?"
                    r"|locations?|areas?|destinations?|regions?)\b", re.I)
_TITLE = re.compile(r"\b(?:books?|movies?|films?|shows?|series|games?|songs?|albums?|novels?|authors?|artists?"
                    r"|bands?)\b", re.I)
_NUMBER = re.compile(r"^\s*how (?:many|much|often|long)\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")


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


def kinds_of(content: str | None, stored: Iterable[str] | None) -> Iterable[str]:
    """A candidate's answer kinds: those stored at write (its ``answer_kinds``), or, for a memory written before
    them (``stored`` None), computed from its content."""
    if stored is not None:
        return stored
    return held_kinds(content) if content else ()


def answers(held: Iterable[str], kinds: Collection[str], named: AbstractSet[str]) -> bool:
    """Whether the ``held`` kinds (``graph.answer_kinds.held_kinds``) include one of the ``kinds`` asked, other
    than an entity whose words the question names (``named``: ``name_words`` of the question)."""
    if not kinds:
        return False
    for item in held:
        kind, name = kind_name(item)
        if kind in kinds and (not name or not name_words(name) <= named):
            return True
    return False
