"""The full-text query: content words only, escaped; Chinese as particle-free bigram phrases."""

from __future__ import annotations

import pytest

from graphmem.retrieval.textquery import content_words, fulltext_query
from graphmem.store.store import lucene_escape


@pytest.mark.parametrize(("text", "expected"), [
    ("What did the painting show?", "painting show"),
    ("When did Caroline go to the LGBTQ support group?", "Caroline go LGBTQ support group"),
    ("what did it look like", "look"),
    ("what did you do?", None),
    ("", None),
    ("退款的订单", '"退款" "订单"'),
    ("我们下周去杭州", '"我们" "们下" "下周" "周去" "去杭" "杭州"'),
    ("AND OR title:x", "title x"),
])
def test_fulltext_query(text: str, expected: str | None) -> None:
    assert fulltext_query(text) == expected


def test_possessives_and_apostrophes_keep_the_name() -> None:
    assert content_words("Melanie's kids' names") == ["Melanie's", "kids", "names"]
    assert content_words("I'm sure it's Jon\u2019s") == ["sure", "Jon\u2019s"]


def test_lucene_escape_quotes_cjk_bigrams_and_escapes_syntax() -> None:
    assert lucene_escape('退款 "x" AND y') == '"退款" \\"x\\" and y'
    assert lucene_escape("款") == "款"
