"""The answer-type term: what kind of answer a question asks for, and whether a memory holds one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.retrieval.answertype import answers, asked_kinds, held_kinds, name_words
from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.ranking import QueryContext, rank
from graphmem.retrieval.textquery import content_words
from graphmem.retrieval.types import RerankMode, SearchOptions


@pytest.mark.parametrize(("query", "kinds"), [
    ("Which cities has John been to?", {"place"}),
    ("Where did Caroline move from?", {"place"}),
    ("What books has Tim read?", {"title"}),
    ("How many children does Melanie have?", {"number"}),
    ("How often does Nate play?", {"number"}),
    ("What did Caroline research?", set()),
    ("When did Melanie paint a sunrise?", set()),
])
def test_asked_kinds_come_from_the_wording(query: str, kinds: set[str]) -> None:
    assert asked_kinds(query) == frozenset(kinds)


def test_held_kinds_skip_the_speakers_opening() -> None:
    assert held_kinds("John: I was in Chicago last month, it was awesome!") != ()
    assert ("place", "chicago") in held_kinds("John: I was in Chicago last month, it was awesome!")
    # the speaker's name before the colon is no answer; lowercase words are no name
    assert held_kinds("John: exploring new cities is always so much fun") == ()
    assert ("title", "") in held_kinds('Tim: I just finished "The Name of the Wind", loved it')
    assert ("number", "") in held_kinds("Nate: I have three turtles now")


def test_answers_needs_an_asked_kind_not_named_by_the_question() -> None:
    query = "Which cities has John been to besides Chicago?"
    kinds, named = asked_kinds(query), name_words(query)
    assert answers("John: We were in Boston, loved the food there!", kinds, named)
    assert not answers("John: We were in Chicago, loved the food there!", kinds, named)  # the question names it
    assert not answers("John: exploring new cities is always so much fun", kinds, named)
    assert not answers("John: I have three turtles", kinds, named)  # a number, but places were asked
    assert not answers("John: We were in Boston", frozenset(), named)  # no kind asked: nothing to add
    assert not answers(None, kinds, named)


def test_frame_nouns_are_not_query_words() -> None:
    assert content_words("What kind of art does Caroline make?") == ["art", "Caroline", "make"]
    assert content_words("What are the names of John's children?") == ["John's", "children"]
    assert content_words("your kind words") == ["kind", "words"]  # no "of": kept


def _candidate(mid: str, cosine: float, content: str) -> Candidate:
    return Candidate(data={"id": mid, "namespace": "ns", "kind": "episodic", "content": content,
                           "created_at": "2025-12-01T00:00:00+00:00"}, cosine=cosine, fused=cosine)


def test_the_answer_term_lifts_the_turn_that_names_a_place() -> None:
    query = "Which cities has John been to?"
    cands = {"echo": _candidate("echo", 0.62, "John: Exploring new cities is always so much fun for me"),
             "city": _candidate("city", 0.55, "John: I was in Boston last week, the food there was great")}
    asked = QueryContext(entities=("john",), kinds=asked_kinds(query), named=name_words(query))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    weights = FormulaWeights(before=0.0, after=0.0, task=0.0)

    def order(w: FormulaWeights, mode: RerankMode = RerankMode.FORMULA) -> list[tuple[str, bool]]:
        out = rank(cands, {}, SearchOptions(namespaces=("ns",), rerank=mode), w, lambda c: c.cosine, now, asked, 10)
        return [(r.memory.id, r.parts.answer) for r in out]

    assert order(weights) == [("city", True), ("echo", False)]
    assert order(weights.model_copy(update={"answer": 0.0})) == [("echo", False), ("city", False)]
    assert [m for m, _ in order(weights, RerankMode.NONE)] == ["echo", "city"]  # no rerank: the fused order
