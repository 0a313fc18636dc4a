"""Time expressions in search queries -> time ranges (pure, offline)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.retrieval import timeparse
from graphmem.retrieval.timeparse import TimeRange, parse_time_range

NOW = datetime(2023, 8, 10, 15, 30, tzinfo=UTC)  # a Thursday
MARCH = datetime(2023, 3, 1, 9, 0, tzinfo=UTC)  # a Wednesday


def days(query: str, now: datetime = NOW) -> tuple[str, str] | None:
    """The range as ISO dates (or full ISO times where it does not start or end at midnight)."""
    found = parse_time_range(query, now)
    if found is None:
        return None

    def show(t: datetime) -> str:
        return t.date().isoformat() if t.time() == datetime.min.time() else t.isoformat()

    return show(found.start), show(found.end)


NOW_ISO = NOW.isoformat()
RECENT = ((NOW - timedelta(days=14)).isoformat(), NOW_ISO)

ENGLISH = [
    ("What did I do today?", ("2023-08-10", "2023-08-11")),
    ("yesterday", ("2023-08-09", "2023-08-10")),
    ("Tonight", ("2023-08-10", "2023-08-11")),
    ("what did she eat this morning", ("2023-08-10", "2023-08-11")),
    ("last night", ("2023-08-09", "2023-08-10")),
    ("the day before yesterday", ("2023-08-08", "2023-08-09")),
    ("tomorrow", ("2023-08-11", "2023-08-12")),
    ("this week", ("2023-08-07", "2023-08-14")),
    ("last week", ("2023-07-31", "2023-08-07")),
    ("next week", ("2023-08-14", "2023-08-21")),
    ("in the last week", ("2023-07-31", "2023-08-07")),
    ("the week before last", ("2023-07-24", "2023-07-31")),
    ("this month", ("2023-08-01", "2023-09-01")),
    ("LAST MONTH", ("2023-07-01", "2023-08-01")),
    ("next month", ("2023-09-01", "2023-10-01")),
    ("this year", ("2023-01-01", "2024-01-01")),
    ("last year", ("2022-01-01", "2023-01-01")),
    ("next year", ("2024-01-01", "2025-01-01")),
    ("the year before last", ("2021-01-01", "2022-01-01")),
    ("this weekend", ("2023-08-12", "2023-08-14")),
    ("last weekend", ("2023-08-05", "2023-08-07")),
    ("next weekend", ("2023-08-19", "2023-08-21")),
    ("over the weekend", ("2023-08-05", "2023-08-07")),
    ("this past weekend", ("2023-08-05", "2023-08-07")),
    ("earlier this year", ("2023-01-01", NOW_ISO)),
    ("earlier this week", ("2023-08-07", NOW_ISO)),
    ("later this month", (NOW_ISO, "2023-09-01")),
    ("last Saturday", ("2023-08-05", "2023-08-06")),
    ("on Saturday", ("2023-08-05", "2023-08-06")),
    ("saturday", ("2023-08-05", "2023-08-06")),
    ("this Friday", ("2023-08-11", "2023-08-12")),
    ("this Monday", ("2023-08-07", "2023-08-08")),
    ("Thursday", ("2023-08-10", "2023-08-11")),  # today is a Thursday
    ("last Thursday", ("2023-08-03", "2023-08-04")),
    ("next Thursday", ("2023-08-17", "2023-08-18")),
    ("3 days ago", ("2023-08-07", "2023-08-08")),
    ("three days ago", ("2023-08-07", "2023-08-08")),
    ("twelve days ago", ("2023-07-29", "2023-07-30")),
    ("a day ago", ("2023-08-09", "2023-08-10")),
    ("a few days ago", ("2023-08-07", "2023-08-08")),
    ("few days ago", ("2023-08-07", "2023-08-08")),
    ("two weeks ago", ("2023-07-24", "2023-07-31")),
    ("a couple of months ago", ("2023-06-01", "2023-07-01")),
    ("couple months ago", ("2023-06-01", "2023-07-01")),
    ("a year ago", ("2022-01-01", "2023-01-01")),
    ("5 years ago", ("2018-01-01", "2019-01-01")),
    ("two days from now", ("2023-08-12", "2023-08-13")),
    ("two weeks before 20 May 2023", ("2023-05-06", "2023-05-07")),
    ("3 days after May 8, 2023", ("2023-05-11", "2023-05-12")),
    ("a month after 2023-01-31", ("2023-02-28", "2023-03-01")),
    ("a year before May 2023", ("2022-05-01", "2022-06-01")),
    ("the day after yesterday", ("2023-08-10", "2023-08-11")),
    ("a week before last Christmas", ("2022-12-18", "2022-12-19")),
    ("in May", ("2023-05-01", "2023-06-01")),
    ("What happened in May?", ("2023-05-01", "2023-06-01")),
    ("last May", ("2023-05-01", "2023-06-01")),
    ("this May", ("2023-05-01", "2023-06-01")),
    ("next May", ("2024-05-01", "2024-06-01")),
    ("May 2023", ("2023-05-01", "2023-06-01")),
    ("May of 2022", ("2022-05-01", "2022-06-01")),
    ("May, 2021", ("2021-05-01", "2021-06-01")),
    ("in May last year", ("2022-05-01", "2022-06-01")),
    ("8 May 2023", ("2023-05-08", "2023-05-09")),
    ("on the 8th of May", ("2023-05-08", "2023-05-09")),
    ("May 8, 2023", ("2023-05-08", "2023-05-09")),
    ("May 8th", ("2023-05-08", "2023-05-09")),
    ("may 8th", ("2023-05-08", "2023-05-09")),
    ("may 2023", ("2023-05-01", "2023-06-01")),
    ("Jan. 5, 2022", ("2022-01-05", "2022-01-06")),
    ("in December", ("2022-12-01", "2023-01-01")),
    ("in August", ("2023-08-01", "2023-09-01")),
    ("July", ("2023-07-01", "2023-08-01")),
    ("in June", ("2023-06-01", "2023-07-01")),
    ("early May", ("2023-05-01", "2023-05-11")),
    ("mid-May", ("2023-05-11", "2023-05-21")),
    ("late May", ("2023-05-21", "2023-06-01")),
    ("the end of February", ("2023-02-21", "2023-03-01")),
    ("in 2022", ("2022-01-01", "2023-01-01")),
    ("what about 2019?", ("2019-01-01", "2020-01-01")),
    ("the 1990s", ("1990-01-01", "2000-01-01")),
    ("2023-05-08", ("2023-05-08", "2023-05-09")),
    ("on 2023/05/08", ("2023-05-08", "2023-05-09")),
    ("2023-05", ("2023-05-01", "2023-06-01")),
    ("the last few days", RECENT),
    ("the past few days", RECENT),
    ("recently", RECENT),
    ("What has she been reading lately?", RECENT),
    ("the past week", ((NOW - timedelta(days=7)).isoformat(), NOW_ISO)),
    ("the last 3 months", ("2023-05-10T15:30:00+00:00", NOW_ISO)),
    ("since May 2023", ("2023-05-01", NOW_ISO)),
    ("since last year", ("2022-01-01", NOW_ISO)),
    ("the summer", ("2023-06-01", "2023-09-01")),  # now is in it
    ("in summer", ("2023-06-01", "2023-09-01")),
    ("last summer", ("2022-06-01", "2022-09-01")),
    ("this summer", ("2023-06-01", "2023-09-01")),
    ("this winter", ("2023-12-01", "2024-03-01")),
    ("the winter", ("2022-12-01", "2023-03-01")),
    ("last winter", ("2022-12-01", "2023-03-01")),
    ("next spring", ("2024-03-01", "2024-06-01")),
    ("in the spring", ("2023-03-01", "2023-06-01")),
    ("the summer of 2021", ("2021-06-01", "2021-09-01")),
    ("last fall", ("2022-09-01", "2022-12-01")),
    ("last Christmas", ("2022-12-25", "2022-12-26")),
    ("at Christmas", ("2022-12-25", "2022-12-26")),
    ("Christmas Eve 2021", ("2021-12-24", "2021-12-25")),
    ("on New Year's Eve", ("2022-12-31", "2023-01-01")),
    ("last Valentine\u2019s Day", ("2023-02-14", "2023-02-15")),
]


@pytest.mark.parametrize(("query", "expected"), ENGLISH)
def test_english(query: str, expected: tuple[str, str]) -> None:
    assert days(query) == expected


IN_MARCH = [
    ("last May", ("2022-05-01", "2022-06-01")),
    ("in May", ("2022-05-01", "2022-06-01")),
    ("this May", ("2023-05-01", "2023-06-01")),
    ("next May", ("2023-05-01", "2023-06-01")),
    ("in March", ("2023-03-01", "2023-04-01")),
    ("last March", ("2022-03-01", "2022-04-01")),
    ("May 8th", ("2022-05-08", "2022-05-09")),
    ("Feb 29th", ("2020-02-29", "2020-03-01")),  # the latest 29 February
    ("yesterday", ("2023-02-28", "2023-03-01")),
    ("last month", ("2023-02-01", "2023-03-01")),
    ("the winter", ("2022-12-01", "2023-03-01")),
    ("last winter", ("2022-12-01", "2023-03-01")),  # now is in no winter: the latest one
    ("this winter", ("2023-12-01", "2024-03-01")),
    ("the spring", None),
    ("in spring", ("2023-03-01", "2023-06-01")),
    ("last spring", ("2022-03-01", "2022-06-01")),
    ("Christmas", None),
    ("next Christmas", ("2023-12-25", "2023-12-26")),
]


@pytest.mark.parametrize(("query", "expected"), IN_MARCH)
def test_relative_to_another_now(query: str, expected: tuple[str, str] | None) -> None:
    assert days(query, MARCH) == expected


def test_a_day_without_a_year_is_the_latest_one_up_to_today() -> None:
    may5 = datetime(2023, 5, 5, tzinfo=UTC)
    assert days("May 8th", may5) == ("2022-05-08", "2022-05-09")
    assert days("May 5th", may5) == ("2023-05-05", "2023-05-06")
    assert days("in May", may5) == ("2023-05-01", "2023-06-01")
    assert days("last May", may5) == ("2022-05-01", "2022-06-01")


CHINESE = [
    ("今天", ("2023-08-10", "2023-08-11")),
    ("我昨天做了什么", ("2023-08-09", "2023-08-10")),
    ("前天", ("2023-08-08", "2023-08-09")),
    ("大前天", ("2023-08-07", "2023-08-08")),
    ("上周", ("2023-07-31", "2023-08-07")),
    ("上个星期", ("2023-07-31", "2023-08-07")),
    ("本周", ("2023-08-07", "2023-08-14")),
    ("这周", ("2023-08-07", "2023-08-14")),
    ("这周末", ("2023-08-12", "2023-08-14")),
    ("上周六", ("2023-08-05", "2023-08-06")),
    ("周六", ("2023-08-05", "2023-08-06")),
    ("星期天", ("2023-08-06", "2023-08-07")),
    ("上个月", ("2023-07-01", "2023-08-01")),
    ("这个月", ("2023-08-01", "2023-09-01")),
    ("本月", ("2023-08-01", "2023-09-01")),
    ("去年", ("2022-01-01", "2023-01-01")),
    ("今年", ("2023-01-01", "2024-01-01")),
    ("前年", ("2021-01-01", "2022-01-01")),
    ("三天前", ("2023-08-07", "2023-08-08")),
    ("3天前", ("2023-08-07", "2023-08-08")),
    ("十天前", ("2023-07-31", "2023-08-01")),
    ("两周前", ("2023-07-24", "2023-07-31")),
    ("三个月前", ("2023-05-01", "2023-06-01")),
    ("两年前", ("2021-01-01", "2022-01-01")),
    ("几天前", ("2023-08-07", "2023-08-08")),
    ("五月", ("2023-05-01", "2023-06-01")),
    ("十二月", ("2022-12-01", "2023-01-01")),
    ("2023年5月", ("2023-05-01", "2023-06-01")),
    ("5月8日", ("2023-05-08", "2023-05-09")),
    ("五月八号", ("2023-05-08", "2023-05-09")),
    ("2022年5月8日", ("2022-05-08", "2022-05-09")),
    ("去年五月", ("2022-05-01", "2022-06-01")),
    ("2021年", ("2021-01-01", "2022-01-01")),
    ("最近", RECENT),
    ("这几天", RECENT),
]


@pytest.mark.parametrize(("query", "expected"), CHINESE)
def test_chinese(query: str, expected: tuple[str, str]) -> None:
    assert days(query) == expected


NO_TIME = [
    "What does Caroline like?",
    "When did she go camping?",
    "When did Melanie paint a sunrise?",
    "How many books did she read?",
    "Would Caroline pursue writing as a career option?",
    "",
    "   ",
    # "may" the verb, and month words that are names or ordinary words
    "May I ask what she likes?",
    "She may go camping",
    "may i ask",
    "this may be wrong",
    "in may",  # lowercase "may" needs a year or an ordinal day
    "She may 8 times have said so",
    "June went camping with Jon",
    "They joined the march",
    "Did August call?",
    "Jan said hello",
    "Did she fall?",
    "after the fall",
    "water from the spring",
    "summer camp",
    "the Christmas tree",
    "she goes there on Saturdays",
    "her most recent trip",
    # relative to something we cannot date: no guess
    "two weeks before the wedding",
    "What did she buy two weeks before her trip in May?",
    "the day after",
    "three days later",
    "A few weeks earlier, in 2021",
    "since she left",
    "She ran 2000 meters",
    "What did she do the next day?",
    "the following week, in 2021",
    "周围的人",
    "一周一次",
    "2023年以前",
    "以前天气怎么样",
    "一个星期",
]


@pytest.mark.parametrize("query", NO_TIME)
def test_no_time_expression(query: str) -> None:
    assert parse_time_range(query, NOW) is None


def test_text_is_the_expression_as_written() -> None:
    found = parse_time_range("What did she do Last Saturday, and why?", NOW)
    assert found is not None
    assert found.text == "Last Saturday"
    found = parse_time_range("what happened two weeks before 20 May 2023 there", NOW)
    assert found is not None
    assert found.text == "two weeks before 20 May 2023"
    found = parse_time_range("anything since May 2023?", NOW)
    assert found is not None
    assert found.text == "since May 2023"


def test_the_first_expression_wins() -> None:
    assert days("yesterday, or the day before") == ("2023-08-09", "2023-08-10")
    assert days("In 2020, or last week") == ("2020-01-01", "2021-01-01")
    assert days("May I ask what she did in June?") == ("2023-06-01", "2023-07-01")
    assert days("she may have gone in 2021") == ("2021-01-01", "2022-01-01")
    assert days("summer camp last year") == ("2022-01-01", "2023-01-01")
    assert days("twice a day after meals, last week") == ("2023-07-31", "2023-08-07")  # no offset there


def test_a_dated_expression_wins_over_one_read_from_now() -> None:
    assert days("yesterday, or in 2020") == ("2020-01-01", "2021-01-01")
    assert days("What did Joanna just finish last Friday on 23 January, 2022?") == ("2022-01-23", "2022-01-24")
    assert days("What movie did Nate recently watch on October 6, 2022?") == ("2022-10-06", "2022-10-07")
    assert days("Where was John between August 11 and August 15 2023?") == ("2023-08-15", "2023-08-16")
    assert days("what did she finish last Friday?") == ("2023-08-04", "2023-08-05")  # nothing dated: from now


def test_the_calendar_is_read_in_nows_zone_and_the_range_is_utc() -> None:
    tokyo = datetime(2023, 8, 10, 1, 0, tzinfo=timezone(timedelta(hours=9)))  # 2023-08-09 16:00 UTC
    found = parse_time_range("today", tokyo)
    assert found == TimeRange(datetime(2023, 8, 9, 15, tzinfo=UTC), datetime(2023, 8, 10, 15, tzinfo=UTC), "today")
    assert found.start.utcoffset() == timedelta(0)
    naive = parse_time_range("yesterday", datetime(2023, 8, 10, 12))  # naive: taken as UTC
    assert naive is not None
    assert naive.start == datetime(2023, 8, 9, tzinfo=UTC)


def test_out_of_range_dates_give_none() -> None:
    assert parse_time_range("next year", datetime.max.replace(tzinfo=UTC)) is None
    assert parse_time_range("yesterday", datetime.min.replace(tzinfo=UTC)) is None
    assert parse_time_range("9999 years ago", NOW) is None
    assert days("30 February 2023") == ("2023-02-01", "2023-03-01")  # no such day: the month is still named
    assert parse_time_range("2023-13-45", NOW) is None
    deep = "a day before " * 50 + "May 8, 2023"
    assert parse_time_range(deep, NOW) is None  # anchors nest at most a few deep


VOCAB = ["today", "yesterday", "last", "this", "next", "week", "weekend", "month", "year", "May", "may", "june",
         "Saturday", "on", "in", "of", "the", "a", "few", "couple", "of", "two", "12", "8th", "2023", "1999",
         "days", "weeks", "ago", "before", "after", "since", "from", "now", "early", "late", "mid-", "end",
         "summer", "winter", "spring", "fall", "Christmas", "Eve", "recently", "2023-05-08", "2023-02", ",", ".",
         "今天", "上周", "五月", "2023年", "5月", "8日", "三天前", "十", "两", "周", "末", "去年", "最近", "9999"]
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12)),
                         timezone(timedelta(hours=5, minutes=30))])
NOWS = st.datetimes(timezones=ZONES) | st.sampled_from([NOW, MARCH])


def check(found: TimeRange | None, query: str) -> None:
    if found is not None:
        assert found.start < found.end
        assert found.start.utcoffset() == timedelta(0)
        assert found.end.utcoffset() == timedelta(0)
        assert found.text
        assert found.text in query


@settings(max_examples=300, deadline=None)
@given(query=st.text(max_size=200), now=NOWS)
def test_fuzz_arbitrary_text(query: str, now: datetime) -> None:
    check(timeparse._parse(query, now), query)  # the unguarded parser: a bug would raise here


@settings(max_examples=1000, deadline=None)
@given(words=st.lists(st.sampled_from(VOCAB), max_size=12), sep=st.sampled_from([" ", "", "  "]), now=NOWS)
def test_fuzz_time_words(words: list[str], sep: str, now: datetime) -> None:
    query = sep.join(words)
    check(timeparse._parse(query, now), query)
    assert parse_time_range(query, now) == timeparse._parse(query, now)
