"""The full-text query: content words only, escaped; Chinese as particle-free bigram phrases."""

from __future__ import annotations

import re

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


_SCRIPTS_MEET = re.compile(r"(?<=[A-Za-z0-9\u2019])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])")


@pytest.mark.parametrize(("text", "words"), [
    ("2024年3月的项目会议", ["2024", "年", "3", "项目", "目会", "会议"]),
    ("Python是什么语言", ["Python", "语言"]),
    ("Shinjuku的酒店", ["Shinjuku", "酒店"]),
    ("Q3之前完成迁移", ["Q3", "之前", "前完", "完成", "成迁", "迁移"]),
    ("推迟到2025年6月", ["推迟", "迟到", "2025", "年", "6", "月"]),
    ("用Caroline\u2019s相机", ["用", "Caroline\u2019s", "相机"]),
])
def test_a_word_glued_to_chinese_is_a_word_and_the_chinese_its_bigrams(text: str, words: list[str]) -> None:
    # a Chinese character is \w too: the Latin word or number swallowed the Chinese after it ("Python是什么语言")
    assert content_words(text) == words
    assert content_words(_SCRIPTS_MEET.sub(" ", text)) == words  # as with a space where the scripts meet


@pytest.mark.parametrize(("text", "expected"), [
    ("Python是什么语言", 'Python "语言"'),  # no particle bigrams ("是什", "么语")
    ("Shinjuku的酒店", 'Shinjuku "酒店"'),
    ("推迟到2025年6月", '("推迟" AND "迟到") OR ("推迟" AND 2025) OR ("推迟" AND 年) OR ("推迟" AND 6)'
     ' OR ("推迟" AND 月) OR ("迟到" AND 2025) OR ("迟到" AND 年) OR ("迟到" AND 6) OR ("迟到" AND 月)'
     " OR (2025 AND 年) OR (2025 AND 6) OR (2025 AND 月) OR (年 AND 6) OR (年 AND 月) OR (6 AND 月)"),
])
def test_fulltext_query_of_chinese_mixed_with_latin(text: str, expected: str) -> None:
    assert fulltext_query(text) == expected


def test_a_mixed_query_of_three_words_needs_two_of_them() -> None:
    query = fulltext_query("2024年3月的项目会议")
    assert query is not None
    assert query.startswith("(2024 AND 年) OR (2024 AND 3) OR ")  # any two words: MIN_MATCH_FROM
    assert '"月的"' not in query
    assert '"的项"' not in query
