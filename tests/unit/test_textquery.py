"""The full-text query: content words only, escaped; Chinese as particle-free bigram phrases."""

from __future__ import annotations

import pytest

from graphmem.retrieval.textquery import content_words, fulltext_query
from graphmem.store.store import lucene_escape


@pytest.mark.parametrize(("text", "expected"), [
    ("What did the painting show?", "painting show"),
    ("When did Caroline go to the support group?", "(Caroline AND go) OR (Caroline AND support) OR (Caroline AND group)"
     " OR (go AND support) OR (go AND group) OR (support AND group)"),
    ("what did it look like", "look"),
    ("what did you do?", None),
    ("", None),
    ("退款的订单", '"退款" "订单"'),
    ("杭州下周", '("杭州" AND "州下") OR ("杭州" AND "下周") OR ("州下" AND "下周")'),
    ("AND OR title:x", "title x"),
    ("Caroline, caroline? Caroline!", "Caroline"),  # one word, as the analyzer lowercases it
    ("Caroline\u2019s party: did caroline come?",
     "(Caroline\u2019s AND party) OR (Caroline\u2019s AND come) OR (party AND come)"),
])
def test_fulltext_query(text: str, expected: str | None) -> None:
    assert fulltext_query(text) == expected


def test_possessives_and_apostrophes_keep_the_name() -> None:
    assert content_words("Melanie's kids' names") == ["Melanie's", "kids", "names"]
    assert content_words("I'm sure it's Jon\u2019s") == ["sure", "Jon\u2019s"]


def test_lucene_escape_quotes_cjk_bigrams_and_escapes_syntax() -> None:
    assert lucene_escape('退款 "x" AND y') == '"退款" \\"x\\" and y'
    assert lucene_escape("款") == "款"
