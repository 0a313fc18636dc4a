"""The answer-type term: what kind of answer a question asks for, and whether a memory holds one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.graph.answer_kinds import held_kinds, kind_name
from graphmem.models import Memory, MemoryKind
from graphmem.retrieval.answertype import answers, asked_kinds, kinds_of, name_words
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


def test_held_kinds_skip_the_speaker() -> None:
    assert "place:chicago" in held_kinds("John: I was in Chicago last month, it was awesome!")
    # the speaker's name before the colon is no answer; lowercase words are no name
    assert held_kinds("John: exploring new cities is always so much fun") == ()
    assert held_kinds("James: exploring new cities is always so much fun") == ()  # not singularised to "jame"
    assert "title:" in held_kinds('Tim: I just finished "The Name of the Wind", loved it')
    assert "number:" in held_kinds("Nate: I have three turtles now")
    assert held_kinds("Nate: 3: a number after the colon") == ("number:",)
    assert kind_name("title:the name: of it") == ("title", "the name: of it")


def _says(content: str, query: str, *, named: str | None = None) -> bool:
    return answers(held_kinds(content), asked_kinds(query), name_words(named or query))


def test_answers_needs_an_asked_kind_not_named_by_the_question() -> None:
    query = "Which cities has John been to besides Chicago?"
    assert _says("John: We were in Boston, loved the food there!", query)
    assert not _says("John: We were in Chicago, loved the food there!", query)  # the question names it
    assert not _says("John: exploring new cities is always so much fun", query)
    assert not _says("John: I have three turtles", query)  # a number, but places were asked
    assert not answers(held_kinds("John: We were in Boston"), frozenset(), name_words(query))  # none asked
    assert not answers(kinds_of(None, None), asked_kinds(query), name_words(query))


def test_stored_kinds_are_read_as_they_are() -> None:
    # a memory written with its kinds: the stored ones count, even where the content would say otherwise
    assert list(kinds_of("John: exploring new cities", ("place:boston",))) == ["place:boston"]
    assert list(kinds_of("John: We were in Boston", ())) == []  # stored: holds none
    assert list(kinds_of("John: We were in Boston", None)) == ["place:boston"]  # written before: computed


def test_a_write_stores_the_kinds() -> None:
    memory = Memory(namespace="ns", kind=MemoryKind.EPISODIC, content="Jon: We flew to Paris and saw 2 shows")
    row = memory.to_row([0.0] * 4)
    assert row["answer_kinds"] == ["number:", "place:paris"]
    assert Memory(namespace="ns", kind=MemoryKind.EPISODIC, content="hi").to_row([0.0])["answer_kinds"] == []


def test_frame_nouns_are_not_query_words() -> None:
    assert content_words("What kind of art does Caroline make?") == ["art", "Caroline", "make"]
    assert content_words("What are the names of John's children?") == ["John's", "children"]
    assert content_words("your kind words") == ["kind", "words"]  # no "of": kept


def _candidate(mid: str, cosine: float, content: str, stored: tuple[str, ...] | None = None) -> Candidate:
    return Candidate(data={"id": mid, "namespace": "ns", "kind": "episodic", "content": content,
                           "created_at": "2025-12-01T00:00:00+00:00"}, cosine=cosine, fused=cosine,
                     answer_kinds=stored)


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


def test_the_ranking_reads_the_stored_kinds() -> None:
    query = "Which cities has John been to?"
    asked = QueryContext(entities=("john",), kinds=asked_kinds(query), named=name_words(query))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    weights = FormulaWeights(before=0.0, after=0.0, task=0.0)
    # stored kinds say the first holds a place and the second none: the content is not read again
    cands = {"echo": _candidate("echo", 0.62, "John: Exploring new cities is fun", ("place:boston",)),
             "city": _candidate("city", 0.55, "John: I was in Boston last week", ())}
    out = rank(cands, {}, SearchOptions(namespaces=("ns",)), weights, lambda c: c.cosine, now, asked, 10)
    assert [(r.memory.id, r.parts.answer) for r in out] == [("echo", True), ("city", False)]

