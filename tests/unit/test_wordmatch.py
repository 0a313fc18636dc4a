"""The text term's word match (``retrieval.wordmatch``): the query's stemmed content words, and the squared share
of them a memory's content holds, each word weighed by how few of the candidates hold it."""

from __future__ import annotations

import math

import pytest

from graphmem.retrieval.wordmatch import coverage, held_share, needles, query_words, searchable, stem, word_weights


@pytest.mark.parametrize(("word", "stemmed"), [
    ("Lessons", "lesson"), ("takes", "tak"), ("jogging", "jogg"), ("painted", "paint"), ("classes", "class"),
    ("Caroline's", "caroline"),
    ("Nate\u2019s", "nate"), ("is", "is"), ("bus", "bus"), ("red", "red"), ("sing", "sing"), ("钢琴", "钢琴"),
])
def test_stem_drops_a_possessive_and_one_common_suffix_when_three_letters_stay(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


def test_query_words_are_the_distinct_stemmed_content_words() -> None:
    # "takes": -es cut ("tak" is in "take" and "takes" alike)
    assert query_words("Who takes piano lessons on Saturdays?") == ("tak", "piano", "lesson", "saturday")
    assert query_words("What did Caroline's friends paint, and what did Caroline paint?") == (
        "caroline", "friend", "paint")
    assert query_words("Who did it?") == ()
    assert query_words("小明每周六学钢琴吗") == ("小明", "明每", "每周", "周六", "六学", "学钢", "钢琴")


def test_coverage_is_the_squared_share_of_the_words_the_content_holds() -> None:
    words = query_words("Who takes piano lessons on Saturdays?")
    assert coverage("Mia takes PIANO lessons every Saturday.", words) == 1.0
    assert coverage("The wedding will take place in Lisbon.", words) == pytest.approx(1 / 16)
    assert coverage("She plays the piano; her lessons are on Mondays.", words) == pytest.approx(1 / 4)
    assert coverage("Nothing in common here.", words) == 0.0
    # at the start of a word only: "live" is not in "deliveries", but it is after a quote, a dash or a line break
    assert coverage("The user prefers morning deliveries.", query_words("Where does the user live?")) == 0.25
    assert coverage('She said "lives in Berlin"', ("live",)) == 1.0
    assert coverage("moved\nlives-in Berlin", ("live",)) == 1.0
    assert coverage("alive", ("live",)) == 0.0
    assert coverage(None, words) == 0.0
    assert coverage("anything", ()) == 0.0
    assert coverage("小明每周六上午学钢琴", query_words("小明学钢琴")) == pytest.approx((3 / 4) ** 2)


def test_needles_put_a_space_before_a_word_and_none_before_a_chinese_bigram() -> None:
    assert needles(("user", "钢琴")) == (" user", "钢琴")


def test_a_word_every_candidate_holds_weighs_least() -> None:
    found = needles(("melanie", "kid", "like"))
    pool = ["Melanie: Thanks, Caroline!", "Melanie: My kids like dinosaurs.", "Caroline: Thanks, Melanie.",
            "Melanie went camping.", "Caroline likes horses."]
    weights = word_weights(pool, found)
    # ln(1 + N / (1 + n)): melanie in 4 of 5, kid in 1, like in 2
    assert weights == pytest.approx((math.log1p(5 / 5), math.log1p(5 / 2), math.log1p(5 / 3)))
    assert weights[0] < weights[2] < weights[1]
    assert word_weights([], found) == (0.0, 0.0, 0.0)


def test_the_weighted_share_counts_each_word_by_its_weight() -> None:
    words = ("melanie", "kid", "like")
    weights = (1.0, 2.0, 1.0)
    # the name alone: 1 of 4; the name and "kids": 3 of 4 (without weights both 1/3 and 2/3)
    assert coverage("Caroline: Thanks, Melanie.", words, weights) == pytest.approx((1 / 4) ** 2)
    assert coverage("Melanie: the kids loved it", words, weights) == pytest.approx((3 / 4) ** 2)
    assert coverage("Melanie: the kids loved it", words) == pytest.approx((2 / 3) ** 2)
    assert coverage("Melanie's kids like dinosaurs", words, weights) == 1.0
    assert coverage("anything", words, (0.0, 0.0, 0.0)) == 0.0
    with pytest.raises(ValueError, match=r"shorter|longer"):
        held_share(searchable("kids"), needles(words), (1.0,))  # a weight per needle, or none


def test_searchable_reads_word_breaks_as_spaces() -> None:
    assert searchable('She said "Lives-in\nBerlin"') == " she said  lives in berlin "
    assert searchable(None) == " "


@pytest.mark.parametrize(("query", "words"), [
    ("Python", ("python",)),
    ("Python是什么语言", ("python", "语言")),
    ("2024年3月的项目会议", ("2024", "年", "3", "项目", "目会", "会议")),
    ("Shinjuku的酒店", ("shinjuku", "酒店")),
    ("Q3之前完成迁移", ("q3", "之前", "前完", "完成", "成迁", "迁移")),
    ("推迟到2025年6月", ("推迟", "迟到", "2025", "年", "6", "月")),
])
def test_query_words_of_chinese_mixed_with_latin_are_words_and_bigrams(query: str, words: tuple[str, ...]) -> None:
    assert query_words(query) == words


def test_a_word_right_after_a_chinese_character_starts_a_word() -> None:
    said = "用户最喜欢的编程语言是Python\uff0c讨厌Java。"
    assert coverage(said, query_words("Python")) == 1.0
    assert coverage(said, query_words("Java")) == 1.0
    assert coverage(said.replace("是Python", "是 Python"), query_words("Python")) == 1.0
    assert coverage("我们在Shinjuku的酒店见面", query_words("Shinjuku的酒店")) == 1.0
    # all but "成迁"
    assert coverage("计划在Q3之前完成数据库迁移", query_words("Q3之前完成迁移")) == pytest.approx((5 / 6) ** 2)
    assert coverage("会议推迟到2025年6月", query_words("推迟到2025年6月")) == 1.0
    assert coverage("2024年3月的项目会议在东京", query_words("2024年3月的项目会议")) == 1.0
    # at the start of the word, as after a space ("java" in "Javascript"), never inside it ("tlin" in "Kotlinx")
    assert coverage("编程语言是Javascript", ("java",)) == 1.0
    assert coverage("编程语言是Kotlinx", ("tlin",)) == 0.0


def test_searchable_puts_a_space_between_chinese_and_what_follows_it() -> None:
    # "\uff0c" (a full-width comma) is no Chinese character
    assert searchable("编程语言是Python\uff0c讨厌Java。") == " 编程语言是 python\uff0c讨厌 java。"
    assert searchable("学 Python") == " 学 python"  # a space there already: no second one
    assert searchable("Q3之前") == " q3之前"  # Chinese after a word: as it was
    assert searchable("钢琴课") == " 钢琴课"  # Chinese bigrams stay whole
    assert needles(query_words("Python是什么语言")) == (" python", "语言")
