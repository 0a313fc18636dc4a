"""Rule-based entity extraction (graphmem.graph.entities): normalisation, filtering, Chinese, limits."""

from __future__ import annotations

import dataclasses
import time

import pytest

from graphmem.graph.entities import KINDS, Entity, extract_entities, normalise_name

# pronouns, stopwords, filler and greetings that must never come back as entities
FORBIDDEN = {
    "i", "me", "you", "he", "she", "it", "we", "they", "my", "your", "our", "their", "this", "that", "the", "a",
    "thing", "stuff", "lot", "time", "day", "really", "wow", "hey", "hi", "hello", "yeah", "thanks", "ok", "lol",
    "something", "people", "way", "morning", "week", "good morning", "oh",
}


def names(text: str, **kw: int) -> list[str]:
    return [e.name for e in extract_entities(text, **kw)]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Caroline", "caroline"),
        ("caroline's", "caroline"),
        ("Caroline\u2019s", "caroline"),
        ("CAROLINE'S", "caroline"),
        ("  pottery   classes! ", "pottery class"),
        ("kids", "kid"),
        ("children", "child"),
        ("beaches", "beach"),
        ("tomatoes", "tomato"),
        ("running shoes", "running shoe"),
        ("stories", "story"),
        ("movies", "movie"),
        ("boxes", "box"),
        ("glass", "glass"),
        ("ceramics", "ceramics"),
        ("Paris", "paris"),
        ("Starbucks", "starbucks"),  # proper names are not singularised
        ("“Lake Tahoe”", "lake tahoe"),
        ("北京", "北京"),
        ("\uff21\uff30\uff29", "api"),  # full-width letters fold to the ASCII key (NFKC)
        ("\uff2e\uff47\uff49\uff4e\uff58", "nginx"),
        ("\uff23\uff41\uff52\uff4f\uff4c\uff49\uff4e\uff45\uff07\uff53", "caroline"),
    ],
)
def test_normalise_name(raw: str, expected: str) -> None:
    assert normalise_name(raw) == expected


def test_possessive_and_case_variants_give_one_name() -> None:
    a = names("I saw Caroline at the park.")
    b = names("We met caroline's sister.")
    c = names("That was Caroline\u2019s idea.")
    assert "caroline" in a
    assert "caroline" in b
    assert "caroline" in c
    assert names("Caroline met caroline's friend and Caroline\u2019s mom.").count("caroline") == 1


def test_examples_from_chat() -> None:
    got = extract_entities("That's awesome, Caroline! I just signed up for a pottery class at the community center.")
    assert [e.name for e in got] == ["caroline", "pottery class", "community center"]
    assert got[0].kind == "person"
    assert got[2].kind == "place"
    assert names("We ran a charity race for mental health in May 2023.") == [
        "charity race", "mental health", "may 2023"]
    assert names("Did you hear back from the adoption agency?") == ["adoption agency"]


def test_dates_and_activities() -> None:
    got = {e.name: e for e in extract_entities("I've been painting a lot lately, and hiking last Saturday.")}
    assert got["painting"].kind == "activity"
    assert got["hiking"].kind == "activity"
    assert got["last saturday"].kind == "date"
    assert got["last saturday"].surface == "last Saturday"
    assert "lot" not in got
    assert names("I may go, I might not.") == []  # "may" the verb is no month


def test_plural_common_noun_is_singular_proper_name_is_not() -> None:
    assert names("My kids loved the beaches in Hawaii.") == ["kid", "beach", "hawaii"]


@pytest.mark.parametrize(
    "text",
    [
        "Hey! Wow, yeah, thanks so much, really.",
        "Hi hello, good morning! How are you doing today?",
        "I think it was a lot of stuff, you know, one thing at a time.",
        "Oh wow, that's really something, lol.",
        "   ",
        "",
    ],
)
def test_stopwords_and_filler_are_never_entities(text: str) -> None:
    assert [e for e in extract_entities(text) if e.kind != "date"] == []


def test_forbidden_words_never_returned_from_ordinary_chat() -> None:
    texts = [
        "Hey Mel! I went to the LGBTQ support group yesterday and it was so empowering.",
        "Yeah, I've been thinking about going back to school to study counseling.",
        "It was amazing, so many people and the music was great.",
        "Honestly, the biggest thing I learned this year is to be kind to myself.",
        "Good morning! Any plans for the weekend? We had a really good time last week.",
        "Thanks! Wow, you did that all by yourself? That's a lot of stuff.",
    ]
    for text in texts:
        got = extract_entities(text)
        assert not {e.name for e in got} & FORBIDDEN, (text, got)
        assert all(len(e.name) >= 2 for e in got)
        assert all(e.kind in KINDS for e in got)


def test_image_caption() -> None:
    assert names("[shares an image: a photo of a dog on a beach]") == ["dog", "beach"]
    assert names("Look! [shares an image: a painting of a sunflower field at sunset]") == [
        "painting", "sunflower field", "sunset"]


def test_chinese() -> None:
    got = {e.name: e for e in extract_entities("我上周去了北京的故宫")}
    assert "北京" in got
    assert "故宫" in got
    assert got["北京"].kind == "place"
    assert "我" not in got
    zh = names("王芳的女儿今年考上了清华大学。")
    assert "王芳" in zh
    assert "清华大学" in zh
    assert "的" not in zh


def test_chinese_is_silent(capfd: pytest.CaptureFixture[str]) -> None:
    assert "杭州" in names("周末我们带孩子去杭州西湖划船了。")
    out, err = capfd.readouterr()
    assert "prefix dict" not in out + err
    assert "jieba" not in out + err.lower()


def test_mixed_chinese_and_english() -> None:
    got = names("我昨天在Starbucks见到了Caroline。")
    assert got == ["昨天", "starbucks", "caroline"]
    assert "成都" in names("We had hotpot in 成都 with my cousin last week.")


@pytest.mark.parametrize(("text", "date"), [
    ("2024年3月我去了北京", "2024年3月"),
    ("我在2024年3月5日搬家", "2024年3月5日"),
    ("上周五我们去看电影", "上周五"),
    ("去年五月我去了杭州", "去年五月"),
    ("去年的五月我去了杭州", "去年的五月"),
    ("两周前我见了小王", "两周前"),
    ("我们三个月后见", "三个月后"),
    ("我女儿每周三上钢琴课", "周三"),
    ("二〇二三年五月我们结婚了", "二〇二三年五月"),
    ("\uff12\uff10\uff12\uff14年\uff13月我去了北京", "2024年3月"),  # full-width digits: the name of 2024年3月
    ("上週五我們去看電影", "上周五"),  # traditional: the name of 上周五
])
def test_a_chinese_date_expression_is_one_date(text: str, date: str) -> None:
    # like "May 2023" and "last Friday": the month is kept, and the whole expression is one date named as written
    dates = [(e.name, e.kind) for e in extract_entities(text) if e.kind == "date"]
    assert dates == [(date, "date")]


def test_chinese_dates_of_different_months_are_different_entities() -> None:
    assert names("2024年3月我去了北京") != names("2024年5月我去了北京")
    assert "2024" not in names("我在2024年3月5日搬家")  # its digits are no English year
    assert "明天" not in names("王明天天跑步")  # a word jieba keeps (王明) wins over a date cutting across it
    assert "王明" in names("王明天天跑步")
    found = {e.name: e for e in extract_entities("\uff12\uff10\uff12\uff14年\uff13月我去了北京")}
    assert found["2024年3月"].surface == "\uff12\uff10\uff12\uff14年\uff13月"  # the surface as written


def test_wuyuetian_the_band_is_no_date() -> None:
    found = {e.name: e.kind for e in extract_entities("五月天的演唱会很棒")}
    assert found["五月天"] == "thing"


def test_limit_respected_and_is_a_prefix() -> None:
    text = ("Caroline and Melanie took the kids to the beach in Hawaii, then a pottery class, a charity race, "
            "a book club at the library, a concert in Denver and a hike near Lake Tahoe with Jon and Emma.")
    full = names(text, limit=100)
    assert len(full) > 8
    for k in (1, 3, 5):
        assert names(text, limit=k) == full[:k]
    assert names(text, limit=0) == []


def test_dedupe_keeps_first_appearance() -> None:
    got = extract_entities("The dog chased another dog. Dogs are great, and my dog's name is Max.")
    assert [e.name for e in got] == ["dog", "max"]
    assert got[0].surface == "dog"


def test_empty_input() -> None:
    assert extract_entities("") == []
    assert extract_entities(" \n\t  ") == []


def test_very_long_input_is_fine() -> None:
    turn = "My sister Anna and I went camping near Lake Tahoe last weekend with the kids. "
    text = turn * 5000 + " ".join(["x" * 200] * 100)  # ~400k characters, with junk at the end
    start = time.perf_counter()
    got = extract_entities(text)
    assert time.perf_counter() - start < 5.0
    assert [e.name for e in got] == ["sister", "anna", "camping", "lake tahoe", "last weekend", "kid"]
    assert len(extract_entities(text, limit=10_000)) < 50
    assert extract_entities("a" * 200_000) == []


def test_entity_is_frozen() -> None:
    ent = Entity("dog", "thing", "dog")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ent.name = "cat"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Refunds arrive within five business days", ["refund", "business day"]),
        ("Card payments settle after two days", ["card payment"]),
        ("The customer asked when the refund arrives", ["customer", "refund"]),
        ("Wow! Caroline's pottery class sounds fun", ["caroline", "pottery class"]),
    ],
)
def test_verbs_end_noun_phrases(text: str, expected: list[str]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My mom cooks dinner for the whole family.", ["mom", "dinner", "family"]),  # -s verb before an object
        ("She paints landscapes.", ["landscape"]),  # after a subject pronoun
        ("Our neighbors cook dinner together.", ["neighbor", "dinner"]),  # base form after a plural noun
        ("That sounds like a great plan!", []),
        ("The hotel offers free breakfast.", ["hotel", "breakfast"]),
    ],
)
def test_noun_or_verb_words_read_as_verbs_in_a_verb_context(text: str, expected: list[str]) -> None:
    assert names(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Her panic attacks got better.", ["panic attack"]),
        ("The breathing exercises for my anxiety work.", ["breathing exercise", "anxiety"]),
        ("Our hiking trips always end at a brewery.", ["hiking trip", "brewery"]),
        ("Kids camp starts next week.", ["kids camp", "next week"]),
        ("The bus stops near my house.", ["bus stop", "house"]),
    ],
)
def test_noun_or_verb_words_stay_nouns_in_compounds(text: str, expected: list[str]) -> None:
    assert names(text) == expected


def test_plural_phrases_normalise_like_their_singular() -> None:
    assert names("Refunds take a while.") == names("The refund takes a while.") == ["refund"]
    assert names("I like card payments.") == names("I like the card payment.") == ["card payment"]
    assert normalise_name("refunds") == normalise_name("refund") == "refund"
    assert normalise_name("card payments") == "card payment"


@pytest.mark.parametrize(("text", "name", "kind"), [
    ("Bruno Lindqvist is married to Joanna Petrov", "joanna petrov", "person"),
    ("I talked to Caroline yesterday.", "caroline", "person"),
    ("Thanks to Maria, it worked.", "maria", "person"),
    ("We went to Paris last May.", "paris", "place"),
    ("She moved to Lisbon.", "lisbon", "place"),
])
def test_a_name_after_to_is_a_person_after_a_verb_of_speaking_or_marrying(text: str, name: str, kind: str) -> None:
    # "to" is a place cue ("went to Paris"); after "married", "talked" or "thanks" the name is a person
    found = {e.name: e.kind for e in extract_entities(text)}
    assert found[name] == kind
