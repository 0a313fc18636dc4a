"""The formula's text and length terms (``retrieval.formula``): how well a memory's words match (the squared share of
the query's content words it holds, ``retrieval.wordmatch``), and a prior against short replies that say little."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.formula import (
    FormulaWeights,
    asks,
    formula_score,
    length_prior,
    speaker_of,
    weighted_length,
)
from graphmem.retrieval.ranking import QueryContext, rank, weighed
from graphmem.retrieval.types import SearchOptions
from graphmem.retrieval.wordmatch import query_words

NOW = datetime(2026, 1, 1, tzinfo=UTC)
OFF = FormulaWeights(similarity=1.0, fused=0.0, text=0.0, length=0.0, question=0.0, speaker=0.0, graph=0.0, time=0.0,
                     entity=0.0, before=0.0, after=0.0, task=0.0, fold=False, recency=0.0, frequency=0.0,
                     confidence=0.0)


def test_length_prior_grows_with_the_log_of_the_estimated_words_up_to_the_cap() -> None:
    assert length_prior("", 200) == 0.0
    assert length_prior(None, 200) == 0.0
    assert math.isclose(length_prior("x" * 15, 200), math.log(4) / math.log(41))
    assert length_prior("x" * 200, 200) == 1.0
    assert length_prior("x" * 5000, 200) == 1.0
    assert length_prior("a😀b", 200) == length_prior("abc", 200)  # code points, as Cypher's size() counts
    # a CJK character weighs 3.7: a short Chinese sentence is not a short English reply
    assert weighted_length("张伟的生日是十月十二日") == pytest.approx(11 * 3.7)
    assert weighted_length("カナ한글\uff0cok") == pytest.approx(4 * 3.7 + 3)  # full-width punctuation counts 1
    assert length_prior("中文" * 5, 200) == pytest.approx(length_prior("x" * 37, 200))
    assert length_prior("张伟的生日是十月十二日他喜欢巧克力蛋糕", 200) > length_prior("See you later, Nate!", 200)
    assert length_prior("See ya!", 200) < length_prior("I finally finished my first full screenplay last Friday.", 200)


def test_formula_adds_the_text_and_length_terms_by_their_weights() -> None:
    w = OFF.model_copy(update={"text": 0.4, "length": 0.6})
    plain, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w)
    assert math.isclose(plain, 0.5)
    both, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w, text=0.5, length=0.25)
    assert math.isclose(both - plain, 0.4 * 0.5 + 0.6 * 0.25)


def candidate(mid: str, content: str, cosine: float) -> Candidate:
    data: dict[str, Any] = {"id": mid, "namespace": "ns", "kind": "episodic", "content": content,
                            "created_at": "2025-12-01T00:00:00+00:00"}
    return Candidate(data=data, cosine=cosine, fused=1.0)


def order(cands: dict[str, Candidate], w: FormulaWeights, query: str = "") -> list[str]:
    out = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW,
               QueryContext(words=query_words(query)), 10)
    return [r.memory.id for r in out]


@pytest.mark.parametrize("weight", [0.0, 0.3])
def test_a_long_answer_beats_a_short_reply_of_a_little_higher_cosine_only_with_the_length_term(weight: float) -> None:
    cands = {"reply": candidate("reply", "Sure thing Nate! See you later!", 0.52),
             "answer": candidate("answer", "Sure, you should come down and join me on the trails sometime! " * 2, 0.50)}
    got = order(cands, OFF.model_copy(update={"length": weight}))
    assert got == (["answer", "reply"] if weight else ["reply", "answer"])


def test_the_memory_holding_more_of_the_query_words_wins_a_near_tie_and_says_so() -> None:
    query = "Who takes piano lessons on Saturdays?"  # words: tak, piano, lesson, saturday
    words = candidate("words", "Mia takes piano lessons every Saturday morning.", 0.50)
    one = candidate("one", "The wedding will take place in Lisbon in early June.", 0.52)
    cands = {"words": words, "one": one}
    w = OFF.model_copy(update={"text": 0.3})
    assert order(cands, w, query) == ["words", "one"]
    assert order(cands, OFF, query) == ["one", "words"]
    assert order(cands, w, "") == ["one", "words"]  # a query without content words: no text term
    out = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW,
               QueryContext(words=query_words(query)), 10)
    parts = {r.memory.id: r.parts for r in out}
    assert parts["words"].text == 1.0
    assert parts["one"].text == pytest.approx(1 / 16)  # one word of four, squared
    assert parts["words"].length == pytest.approx(length_prior(words.data["content"], w.length_cap), abs=1e-6)


def test_a_name_most_candidates_say_counts_less_than_the_rarer_word_once_weighed() -> None:
    query = "What do Melanie's kids enjoy?"  # words: melanie, kid, enjoy
    cands = {f"thanks{i}": candidate(f"thanks{i}", f"Caroline: Thanks, Melanie! See you at the gallery {i}.", 0.50)
             for i in range(4)}
    cands["answer"] = candidate("answer", "Her kids love dinosaurs and nature walks.", 0.45)
    cands["both"] = candidate("both", "Caroline: Thanks, Melanie, the kids enjoy the class.", 0.40)
    w = OFF.model_copy(update={"text": 1.0})
    asked = QueryContext(words=query_words(query))
    weighed_ = weighed(asked, cands)
    assert weighed_.word_weights[0] < weighed_.word_weights[1]  # "melanie" in 5 of 6, "kid" in 2
    plain = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW, asked, 10)
    got = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW, weighed_, 10)
    # unweighed, the name and "kids" are one word of three alike: the thank-yous' higher cosines win; weighed, not
    assert [r.memory.id for r in plain].index("answer") > [r.memory.id for r in plain].index("thanks0")
    assert [r.memory.id for r in got][:2] == ["both", "answer"]
    parts = {r.memory.id: r.parts.text for r in got}
    assert parts["both"] == 1.0
    assert parts["thanks0"] < (1 / 3) ** 2 < parts["answer"]


def test_a_memory_that_asks_loses_the_question_weight_and_says_so() -> None:
    assert asks("Have you been to the lake?  ")
    assert asks("你去过湖边吗\uff1f")
    assert not asks("I went to the lake. Have you?!")  # ends with "!"
    assert not asks(None)
    w = OFF.model_copy(update={"question": 0.1})
    told, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w)
    asked, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w, asking=True)
    assert math.isclose(told - asked, 0.1)
    cands = {"ask": candidate("ask", "Melanie: Have you ever been camping in the mountains?", 0.55),
             "tell": candidate("tell", "Melanie: We went camping in the mountains last week.", 0.50)}
    assert order(cands, OFF) == ["ask", "tell"]
    got = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW, QueryContext(), 10)
    assert [r.memory.id for r in got] == ["tell", "ask"]
    assert [r.parts.question for r in got] == [False, True]


def test_speaker_of_reads_the_name_before_the_first_colon() -> None:
    assert speaker_of("Caroline: I researched adoption agencies.") == "caroline"
    assert speaker_of("  Jon Snow : winter is coming") == "jon snow"
    assert speaker_of("小明\uff1a我去了湖边。") == "小明"  # a full-width colon
    assert speaker_of("Tim: it starts at 10:30") == "tim"  # the first colon
    assert speaker_of("Thanks for the tip, Caroline.") is None  # no colon: nobody speaks
    assert speaker_of(": no name") is None
    assert speaker_of("x" * 41 + ": a sentence, not a name") is None
    assert speaker_of(None) is None


def test_a_memory_said_by_someone_the_query_names_gains_the_speaker_weight_and_says_so() -> None:
    w = OFF.model_copy(update={"speaker": 0.1})
    plain, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w)
    said, _, _ = formula_score(0.5, NOW, 0, 1.0, NOW, w, said=True)
    assert math.isclose(said - plain, 0.1)
    cands = {"addressed": candidate("addressed", "Melanie: Thanks for the research tip, Caroline!", 0.55),
             "said": candidate("said", "Caroline: I researched adoption agencies last week.", 0.50)}
    assert order(cands, OFF) == ["addressed", "said"]
    asked = QueryContext(entities=("caroline", "research"))
    got = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW, asked, 10)
    assert [r.memory.id for r in got] == ["said", "addressed"]
    assert [r.parts.speaker for r in got] == [True, False]
    nobody = rank(cands, {}, SearchOptions(namespaces=("ns",)), w, lambda c: c.cosine, NOW, QueryContext(), 10)
    assert [r.memory.id for r in nobody] == ["addressed", "said"]  # the query names no one
