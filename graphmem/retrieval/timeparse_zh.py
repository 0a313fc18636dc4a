"""The Chinese rules of :mod:`graphmem.retrieval.timeparse`, read on the query folded by :func:`graphmem.zhtext.fold`.

The fold keeps offsets, so a match is also the expression as written; it makes full-width digits ASCII
(``２０２４年３月``, ``３天前``) and the traditional forms of the time words simplified (``上週五``, ``上個月``,
``兩週前``). Forms, with now's calendar as ``timeparse`` documents:

* 今天 昨天 前天 大前天 明天 后天; 最近/近来/近期/这几天/前几天/这些天/这段时间 (the 14 days before now).
* 上周/本周/这周/下周/上上周 (+一..日/天/末), 周六/星期六/礼拜六 (the latest up to today), 周末.
* 上个月/这个月/本月/下个月; 去年/今年/明年/前年.
* N天前/N周前/N个星期前/N个月前/N年前 (and 后; N: digits, 一..九十九, 两, 几 = 3).
* months: 五月, 5月, 五月份 (the latest such month not after now's month); 5月8日/号 (the latest such day up to
  today); with a year: 2023年5月, 二〇二三年五月 (or 二零二三), 去年五月, 去年的五月, 2022年5月8日. 五月天 (the
  band) is not May: 五 followed by 天 (but not 天气 or 天天) is no month.
* years: 2023年, 二〇二三年 (not 2023年以前/之后/前/后).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from graphmem.retrieval import timewords as w

__all__ = ["DATED", "RULES"]

Handler = Callable[["re.Match[str]", w.Calendar, bool], "w.Span | None"]
RULES: list[tuple[re.Pattern[str], Handler]] = []

DATED = re.compile(rf"(?:{w.CN_YEAR_RE})年")
"""A Chinese expression that names its year: it wins over one read from now, as an English one does."""

_YEAR_DIGIT = "".join(w.CN_YEAR_DIGITS)


def _rule(pattern: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        RULES.append((re.compile(pattern), handler))
        return handler

    return register


@_rule(w.CN_RECENT_RE)
def _recently(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    return w.Span(c.now - w.RECENT, c.now)


@_rule(r"大前天|(?<![以之])前天|昨[天日晚]|今[天日晚早]|明[天日]|(?<![以之])后天")
def _day(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    return c.days(c.today + timedelta(days=w.CN_DAY_WORDS[m[0]]))


@_rule(r"(?<![0-9一二两三四五六七八九十几每])(?P<rel>上上个?|上个?|这个?|本|下个?)?(?:周|星期|礼拜)(?P<d>[一二三四五六日天末])?")
def _week(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    rel, day = m["rel"], m["d"]
    if not rel and not day:
        return None  # 周围, 一个星期 (一周一次 and 每周一 are no dates either)
    if not rel:
        if day == "末":
            return c.recent_weekend()
        return c.days(c.today - timedelta(days=(c.today.weekday() - w.CN_WEEKDAYS[day]) % 7))
    monday = w.week_start(c.today) + timedelta(weeks=w.CN_RELATIVE[rel.rstrip("个")])
    if day == "末":
        return c.weekend(monday)
    return c.days(monday + timedelta(days=w.CN_WEEKDAYS[day])) if day else c.days(monday, 7)


@_rule(r"(?P<rel>上上个|上个?|这个?|本|下个?)月")
def _month(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    day = w.add_months(c.today, w.CN_RELATIVE[m["rel"].rstrip("个")])
    return c.month(day.year, day.month)


@_rule("前年|去年|今年|明年")
def _year_word(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    return c.year(c.today.year + w.CN_YEAR_WORDS[m[0]])


@_rule(rf"(?<![0-9])(?P<n>[0-9]{{1,3}}|{w.CN_NUM_RE})\s*(?P<u>天|日|周|个星期|星期|个礼拜|礼拜|个月|年)[之以]?(?P<dir>前|后)")
def _offset(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    count, unit = w.cn_number(m["n"]), w.CN_UNITS[m["u"]]
    if count is None:
        return None
    return c.period(w.shift_date(c.today, -count if m["dir"] == "前" else count, unit), unit)


@_rule(rf"(?:(?:(?P<y>{w.CN_YEAR_RE})年|(?P<ry>前年|去年|今年|明年))的?)?"
       r"(?<![0-9])(?P<m>[0-9]{1,2}|十[一二]?|[一二三四五六七八九])月份?"
       r"(?:(?P<d>[0-9]{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])[日号])?")
def _date(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    month, day = w.cn_number(m["m"]), w.cn_number(m["d"]) if m["d"] else None
    if month is None or not 1 <= month <= 12 or (m["d"] and day is None):
        return None
    if m["m"] == "五" and not m["d"] and m.string.startswith("天", m.end()) and not m.string.startswith(
            ("天气", "天天"), m.end()):
        return None  # 五月天, the band; not 五月天气 (May's weather), 五月天天 (every day of May)
    year = w.cn_year(m["y"]) if m["y"] else c.today.year + w.CN_YEAR_WORDS[m["ry"]] if m["ry"] else None
    return c.month_or_day(month, day, year)


@_rule(rf"(?<![0-9{_YEAR_DIGIT}])(?P<y>{w.CN_YEAR_RE})年(?![前后之以])")
def _year_number(m: re.Match[str], c: w.Calendar, anchored: bool) -> w.Span | None:
    return c.year(w.cn_year(m["y"]))
