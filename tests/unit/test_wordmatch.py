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
