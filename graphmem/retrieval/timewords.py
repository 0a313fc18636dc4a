"""Vocabulary and calendar helpers for :mod:`graphmem.retrieval.timeparse` (English and Chinese)."""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import NamedTuple

MONTHS: dict[str, int] = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
# Month words that are nothing but month names. The others ("May", "March", "June", "August", "Jan", ...)
# are also verbs, names or abbreviations, so they count only with a cue: a day, a year, "in", "last", ...
PLAIN_MONTHS = frozenset({"january", "february", "july", "september", "october", "november", "december"})
MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))

WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}
WEEKDAY_RE = "|".join(WEEKDAYS)

# Meteorological seasons, northern hemisphere: the month each starts in (winter runs Dec..Feb).
SEASON_START: dict[str, int] = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
AMBIGUOUS_SEASONS = frozenset({"spring", "fall"})  # also a noun / a verb: "the spring" alone is not a season

APOS = "['\u2019]"  # ' or a typographic apostrophe

# Fixed-date holidays: (pattern, month, day); the more specific pattern of a name comes first.
HOLIDAYS: tuple[tuple[str, int, int], ...] = (
    (r"christmas\s+eve", 12, 24),
    (r"christmas(?:\s+day)?|x-?mas", 12, 25),
    (rf"new\s+year{APOS}?s\s+eve", 12, 31),
    (rf"new\s+year{APOS}?s(?:\s+day)?", 1, 1),
    (r"halloween", 10, 31),
    (rf"valentine{APOS}?s(?:\s+day)?", 2, 14),
)
HOLIDAY_RE = "|".join(pattern for pattern, _, _ in HOLIDAYS)

# Words after which a number like 2000 is a count, not a year ("she ran 2000 meters").
COUNTED = ("m|km|meters?|metres?|miles?|feet|ft|kg|lbs?|pounds|dollars|euros|people|points|steps|words|calories"
           "|times|hours|minutes|pieces|copies|members|followers|views|likes|pages")

NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
NUM_RE = r"(?:a\s+)?couple(?:\s+of)?|(?:a\s+)?few|[0-9]{1,4}|" + "|".join(
    sorted(NUMBER_WORDS, key=len, reverse=True))

# "last"/"this"/"next" and their longer forms, as offsets in whole periods.
RELATIVE: dict[str, int] = {"last": -1, "this past": -1, "past": -1, "this": 0, "next": 1, "this coming": 1}

DAY_WORDS: dict[str, int] = {
    "the day before yesterday": -2, "the day after tomorrow": 2, "yesterday": -1, "last night": -1, "today": 0,
    "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0, "tomorrow": 1,
}
# early/mid/late May (the beginning/middle/end of May): [first day, day after the last); 32 = to month end
PORTIONS: dict[str, tuple[int, int]] = {
    "early": (1, 11), "beginning": (1, 11), "start": (1, 11), "mid": (11, 21), "middle": (11, 21),
    "late": (21, 32), "end": (21, 32),
}

CN_DIGITS: dict[str, int] = {
    "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}
CN_NUM_RE = "[零一二两三四五六七八九十几]{1,3}"
# a year spelt digit by digit: 二零二三, or with the ideographic zero (U+3007) for 零
CN_YEAR_DIGITS: dict[str, int] = {"\u3007": 0} | {k: v for k, v in CN_DIGITS.items() if k != "两"}
CN_YEAR_RE = f"[0-9]{{4}}|[{''.join(CN_YEAR_DIGITS)}]{{4}}"
CN_WEEKDAYS: dict[str, int] = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
CN_DAY_WORDS: dict[str, int] = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "今天": 0, "今日": 0, "今晚": 0, "今早": 0,
    "明天": 1, "明日": 1, "后天": 2,
}
CN_YEAR_WORDS: dict[str, int] = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}
CN_RELATIVE: dict[str, int] = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}
CN_UNITS: dict[str, str] = {
    "天": "day", "日": "day", "周": "week", "星期": "week", "个星期": "week", "礼拜": "week", "个礼拜": "week",
    "个月": "month", "年": "year",
}
RECENT = timedelta(days=14)  # recently, the last few days, 最近: the 14 days before now
CN_RECENT_RE = "最近|近来|近期|这几天|前几天|这些天|这段时间"


def norm(text: str) -> str:
    """Lower case, inner whitespace collapsed to single spaces."""
    return " ".join(text.lower().split())


def parse_number(text: str) -> int | None:
    """'3', 'three', 'a', 'a couple of' (2), 'few' (3); None for anything else."""
    word = norm(text)
    if word.isascii() and word.isdigit():
        return int(word)
    if "couple" in word:
        return 2
    if "few" in word:
        return 3
    return NUMBER_WORDS.get(word)


def cn_number(text: str) -> int | None:
    """Chinese numerals up to 99 ('三', '十二', '二十八', '两'), ASCII digits, '几' (a few = 3)."""
    if text.isascii() and text.isdigit():
        return int(text)
    if text == "几":
        return 3
    head, ten, tail = text.partition("十")
    if not ten:
        return CN_DIGITS.get(text) if len(text) == 1 else None
    tens = CN_DIGITS.get(head) if head else 1
    ones = CN_DIGITS.get(tail) if tail else 0
    if tens is None or ones is None or "十" in tail:
        return None
    return tens * 10 + ones


def cn_year(text: str) -> int:
    """A four-digit year, in ASCII digits or spelt digit by digit ('二零二三', or with U+3007 for 零)."""
    return int(text) if text.isascii() else int("".join(str(CN_YEAR_DIGITS[c]) for c in text))


def holiday_date(text: str) -> tuple[int, int]:
    """(month, day) of the holiday named by `text`, one of the HOLIDAYS patterns."""
    for pattern, month, day in HOLIDAYS:
        if re.fullmatch(pattern, text, re.IGNORECASE):
            return month, day
    raise ValueError(text)


def add_months(day: date, months: int) -> date:
    """`day` moved by whole months, clamped to the last day of a shorter month."""
    year, month0 = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month0 + 1, min(day.day, calendar.monthrange(year, month0 + 1)[1]))


def week_start(day: date) -> date:
    """The Monday of `day`'s week."""
    return day - timedelta(days=day.weekday())


def shift_date(day: date, count: int, unit: str) -> date:
    """`day` moved by `count` days, weeks, months or years (month ends clamped)."""
    if unit == "day":
        return day + timedelta(days=count)
    if unit == "week":
        return day + timedelta(weeks=count)
    return add_months(day, count * (12 if unit == "year" else 1))


def shift(moment: datetime, count: int, unit: str) -> datetime:
    """`moment` moved by `count` units, keeping its wall-clock time and zone."""
    return datetime.combine(shift_date(moment.date(), count, unit), moment.timetz())


class Span(NamedTuple):
    """A range [start, end) in the calendar's zone, and where its text ends in the query (-1: the match's end)."""

    start: datetime
    end: datetime
    stop: int = -1


@dataclass
class Calendar:
    """Calendar periods as spans of aware datetimes in the zone of `now`."""

    now: datetime

    @property
    def today(self) -> date:
        return self.now.date()

    def at(self, day: date) -> datetime:
        return datetime(day.year, day.month, day.day, tzinfo=self.now.tzinfo)

    def days(self, first: date, count: int = 1) -> Span:
        return Span(self.at(first), self.at(first + timedelta(days=count)))

    def month(self, year: int, month: int) -> Span:
        first = date(year, month, 1)
        return Span(self.at(first), self.at(add_months(first, 1)))

    def year(self, year: int, count: int = 1) -> Span:
        return Span(self.at(date(year, 1, 1)), self.at(date(year + count, 1, 1)))

    def period(self, day: date, unit: str) -> Span:
        """The calendar day, week (Monday first), month or year containing `day`."""
        if unit == "day":
            return self.days(day)
        if unit == "week":
            return self.days(week_start(day), 7)
        if unit == "month":
            return self.month(day.year, day.month)
        return self.year(day.year)

    def weekend(self, day: date) -> Span:
        """Saturday 00:00 .. Monday 00:00 of `day`'s week."""
        return self.days(week_start(day) + timedelta(days=5), 2)

    def recent_weekend(self) -> Span:
        """The latest weekend begun by today."""
        saturday = week_start(self.today) + timedelta(days=5)
        return self.days(saturday if saturday <= self.today else saturday - timedelta(days=7), 2)

    def month_or_day(self, month: int, day: int | None, year: int | None, mod: str = "") -> Span | None:
        """A month (or a part of it, see PORTIONS) or a day of it; a missing year as "timeparse" documents."""
        today = self.today
        if year is None and mod in ("last", "this past"):
            year = today.year if month < today.month else today.year - 1
        elif year is None and mod == "this":
            year = today.year
        elif year is None and mod in ("next", "this coming"):
            year = today.year if month > today.month else today.year + 1
        if day is not None:
            if year is not None:
                return self.days(date(year, month, day))
            year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
            for back in range(8):  # 29 February: the latest leap year's
                try:
                    return self.days(date(year - back, month, day))
                except ValueError:
                    continue
            return None
        if year is None:
            year = today.year if month <= today.month else today.year - 1
        whole = self.month(year, month)
        if mod not in PORTIONS:
            return whole
        first, last = PORTIONS[mod]
        return Span(self.at(date(year, month, first)), self.at(date(year, month, last)) if last < 32 else whole.end)
