"""The time range a search query names: a pure, offline parser of English and Chinese time expressions.

``parse_time_range(query, now)`` takes the query's first recognised time expression (leftmost, the longest
at a tie) and returns the range ``[start, end)`` it names, in UTC; but an expression that names its year wins
over one read from now ("what she finished last Friday, as mentioned on 23 January 2022" is 23 January 2022:
the relative words quote what was said then). The calendar is read in ``now``'s own zone
(a naive ``now`` is UTC); weeks start on Monday; a weekend is Saturday 00:00 .. Monday 00:00. It never raises.

* today/tonight/this morning; yesterday/last night; the day before yesterday; tomorrow.
* this/last/next week|month|year|weekend: the calendar period; "over the weekend", "this past weekend": the
  latest weekend begun; "the week before last"; "earlier this year": year start .. now ("later": now .. end).
* "last Saturday": the latest Saturday before today; "(on) Saturday": the latest one up to today; "this
  Friday": the Friday of this week; "next Friday": the first Friday after today.
* "N days|weeks|months|years ago" / "from now": the calendar day|week|month|year containing now moved by N
  (N: digits, one..twelve, a/an, (a) couple (of) = 2, (a) few = 3).
* "N units before|after X": X moved by N units, X being an expression right after the word ("two weeks
  before 20 May 2023" = 6 May 2023). If X cannot be dated ("two weeks before the wedding", "the day after",
  "three days later", "the following week") the query gives None: no guess. "since X": X's start .. now.
* months: without a year, the latest such month not after now's month; "last May" the latest May strictly
  before the current month (now 2023-08-10: May 2023; now 2023-03-01: May 2022); "this May" May of now's
  year; "next May" the first after the current month; early/mid/late May (beginning/middle/end of May):
  days 1-10 / 11-20 / 21-end. A day without a year ("May 8th", "8 May") is the latest such date up to
  today. Forms: in May, May 2023, May of 2023, May last year, 8 May 2023, the 8th of May, May 8, 2023,
  Jan. 5. Month words that are also words or names (May, March, April, June, August, abbreviations) need a
  cue: a day, a year, or in/during/last/this/early/...; a lowercase "may" needs a year or an ordinal day,
  so "May I ask" and "she may go" are not May.
* years: "in 2022", a standalone 19xx/20xx, "the 1990s"; ISO 2023-05-08 (or / .) and 2023-05.
* the last/past few days, recently, lately: the 14 days before now; "the past week", "the last 3 months":
  now minus that .. now ("last week" without a number is the calendar week).
* seasons (northern, meteorological: spring Mar-May, summer Jun-Aug, autumn/fall Sep-Nov, winter Dec-Feb,
  named by the year it starts in): "the/in summer" the latest begun; "last summer" the one before the
  current one (or the latest, if now is in none); "this winter" the current one, else the one starting in
  now's year; "next" the first not yet begun; "summer (of) 2022".
* holidays (Christmas (Eve/Day), New Year's Eve/Day, Halloween, Valentine's Day) need last/this/next, a year
  or on/at/over/for/...: plain = the latest up to today, last = the latest before today, this = now's year.
* Chinese (:mod:`graphmem.retrieval.timeparse_zh`): 今天, 上周五, 上个月, 去年, 三天前, 五月, 2023年5月,
  二〇二三年五月, 去年(的)五月, 5月8日, 2023年, 最近, ...; full-width digits and traditional forms (上週五) too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from graphmem.retrieval import timeparse_zh as zh
from graphmem.retrieval import timewords as w
from graphmem.zhtext import fold

__all__ = ["TimeRange", "parse_time_range"]

_Span = w.Span
_MAX_QUERY = 4000  # characters looked at
_MAX_DEPTH = 4  # nested anchors ("a day before two weeks after ...")
_YEAR = re.compile(r"(?<!\d)(1[89]|20)\d\d(?!\d)")


@dataclass(frozen=True)
class TimeRange:
    start: datetime  # inclusive, tz-aware UTC
    end: datetime  # exclusive, tz-aware UTC
    text: str  # the expression matched, as it appears in the query


class _Unresolvable(Exception):
    """An offset from something we cannot date ("two weeks before the wedding")."""


_Handler = Callable[["re.Match[str]", "_Ctx", bool], "_Span | None"]
_RULES: list[tuple[re.Pattern[str], _Handler]] = []
_Cand = tuple[int, int, int, "re.Match[str]"]  # (start, -end, rule index, match)


def _rule(pattern: str) -> Callable[[_Handler], _Handler]:
    def register(handler: _Handler) -> _Handler:
        _RULES.append((re.compile(pattern, re.IGNORECASE), handler))
        return handler

    return register


@dataclass
class _Ctx(w.Calendar):
    query: str = ""
    starts: dict[int, list[_Cand]] = field(default_factory=dict)
    depth: int = 0

    def anchor(self, pos: int) -> _Span | None:
        """The expression starting at `pos` (after blanks), for "before X" / "since X"."""
        while pos < len(self.query) and self.query[pos].isspace():
            pos += 1
        if self.depth >= _MAX_DEPTH:
            return None
        self.depth += 1
        try:
            for _, _, index, match in self.starts.get(pos, []):
                hit = _evaluate(match, index, self, anchored=True)
                if hit is not None:
                    return hit
            return None
        finally:
            self.depth -= 1


def _evaluate(match: re.Match[str], index: int, ctx: _Ctx, anchored: bool) -> _Span | None:
    try:
        hit = _RULES[index][1](match, ctx, anchored)
        if hit is None or not hit.start.astimezone(UTC) < hit.end.astimezone(UTC):
            return None
    except (ValueError, OverflowError):  # dates out of datetime's range, 30 February, ...
        return None
    return hit if hit.stop >= 0 else hit._replace(stop=match.end())


def parse_time_range(query: str, now: datetime) -> TimeRange | None:
    """The time range the query's first recognised time expression names, relative to `now` (tz-aware); None if none."""
    if not isinstance(query, str) or not isinstance(now, datetime):
        return None
    try:
        return _parse(query, now if now.tzinfo is not None else now.replace(tzinfo=UTC))
    except Exception:  # noqa: BLE001 - a query must never break a search; tests call _parse to see bugs
        return None


def _parse(query: str, now: datetime) -> TimeRange | None:
    query = query[:_MAX_QUERY]
    texts = (query, fold(query))  # English rules read the query as it is, Chinese ones its fold (same offsets)
    cands: list[_Cand] = [(m.start(), -m.end(), index, m)
                          for index, (pattern, _) in enumerate(_RULES)
                          for m in pattern.finditer(texts[index >= _ZH_FROM]) if m.end() > m.start()]
    cands.sort(key=lambda cand: cand[:3])
    ctx = _Ctx(now, query)
    for cand in cands:
        ctx.starts.setdefault(cand[0], []).append(cand)
    first: TimeRange | None = None
    for start, _, index, match in cands:
        try:
            hit = _evaluate(match, index, ctx, anchored=False)
        except _Unresolvable:
            if first is None:
                return None  # the first expression is relative to something undated: no range, rather than a guess
            continue
        if hit is None:
            continue
        found = TimeRange(hit.start.astimezone(UTC), hit.end.astimezone(UTC), query[start:hit.stop].strip())
        if _YEAR.search(found.text) or (index >= _ZH_FROM and zh.DATED.search(texts[1][start:hit.stop])):
            return found  # a dated expression wins over one read from now
        first = first or found
    return first


# ---- English ------------------------------------------------------------------------------------------

@_rule(r"(?<![0-9])(?P<y>[0-9]{4})(?P<sep>[-/.])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})(?![0-9])")
def _iso_date(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.days(date(int(m["y"]), int(m["m"]), int(m["d"])))


@_rule(r"(?<![0-9/.-])(?P<y>[0-9]{4})-(?P<m>[0-9]{2})(?![0-9]|[-/.][0-9])")
def _iso_month(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.month(int(m["y"]), int(m["m"]))


@_rule(r"\b(?:the\s+day\s+(?:before\s+yesterday|after\s+tomorrow)|yesterday|last\s+night|today|tonight"
       r"|this\s+(?:morning|afternoon|evening)|tomorrow)\b")
def _day_word(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.days(c.today + timedelta(days=w.DAY_WORDS[w.norm(m[0])]))


@_rule(r"\b(?P<mod>last|this\s+past|this\s+coming|this|next)\s+(?P<u>week|month|year|weekend)\b")
def _period(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    mod, unit = w.norm(m["mod"]), m["u"].lower()
    offset = w.RELATIVE[mod]
    if unit == "weekend":
        return c.recent_weekend() if mod == "this past" else c.weekend(c.today + timedelta(weeks=offset))
    return c.period(w.shift_date(c.today, offset, unit), unit)


@_rule(r"\b(?:(?:over|at|on|during|for)\s+the)\s+weekend\b")
def _the_weekend(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.recent_weekend()


@_rule(r"\bthe\s+(?P<u>day|week|month|year)\s+before\s+last\b")
def _before_last(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    unit = m["u"].lower()
    return c.period(w.shift_date(c.today, -2, unit), unit)


@_rule(r"\b(?:(?P<earlier>earlier|so\s+far)|later)\s+this\s+(?P<u>week|month|year)\b")
def _part_of_period(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    whole = c.period(c.today, m["u"].lower())
    return _Span(whole.start, c.now) if m["earlier"] else _Span(c.now, whole.end)


@_rule(r"\bthe\s+(?:next|following|previous|prior|same)\s+(?:day|night|morning|week|weekend|month|year)\b")
def _context_relative(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    raise _Unresolvable(m[0])  # relative to a moment the query talks about, not to now


@_rule(rf"(?<!once\s)(?<!twice\s)(?<!times\s)(?<!per\s)\b(?P<n>{w.NUM_RE}|the)\s+"
       r"(?P<u>day|night|week|month|year)s?\s+(?P<dir>ago|from\s+now|before|after|prior\s+to|earlier|later)\b")
def _offset(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    direction, unit = w.norm(m["dir"]), m["u"].lower().replace("night", "day")
    if direction in ("earlier", "later"):
        raise _Unresolvable(m[0])  # relative to something the query talks about, not to now
    count = 1 if m["n"].lower() == "the" and direction not in ("ago", "from now") else w.parse_number(m["n"])
    if count is None:
        return None
    if direction in ("ago", "from now"):
        return c.period(w.shift_date(c.today, count if direction == "from now" else -count, unit), unit)
    anchor = c.anchor(m.end())
    if anchor is None:
        raise _Unresolvable(m[0])
    count = count if direction == "after" else -count
    start, end = w.shift(anchor.start, count, unit), w.shift(anchor.end, count, unit)
    return _Span(start, end if end > start else start + (anchor.end - anchor.start), anchor.stop)


@_rule(r"\bsince\s+")
def _since(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    anchor = c.anchor(m.end())
    if anchor is None:
        return None
    return _Span(anchor.start, c.now, anchor.stop) if anchor.start < c.now else anchor


@_rule(rf"\b(?:(?:in|over|during|within|for)\s+)?(?:the\s+)?(?P<k>past|last)\s+(?:(?P<n>{w.NUM_RE})\s+)?"
       r"(?P<u>day|week|month|year)(?P<pl>s)?\b")
def _rolling(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    if m["n"] is None and (m["k"].lower() == "last" or m["pl"]):
        return None  # "last week" is the calendar week; "in past years" is no range
    count = w.parse_number(m["n"]) if m["n"] else 1
    if count is None:
        return None
    if m["u"].lower() == "day" and m["n"] and "few" in m["n"].lower():
        return _Span(c.now - w.RECENT, c.now)
    return _Span(w.shift(c.now, -count, m["u"].lower()), c.now)


@_rule(r"\b(?:recently|lately|of\s+late)\b")
def _recently(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return _Span(c.now - w.RECENT, c.now)


@_rule(rf"\b(?:(?P<mod>last|this\s+past|past|this\s+coming|this|next|on)\s+)?(?P<wd>{w.WEEKDAY_RE})\b")
def _weekday(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    weekday, mod = w.WEEKDAYS[m["wd"].lower()], w.norm(m["mod"] or "")
    if mod == "this":
        return c.days(w.week_start(c.today) + timedelta(days=weekday))
    if mod in ("next", "this coming"):
        return c.days(c.today + timedelta(days=(weekday - c.today.weekday()) % 7 or 7))
    back = (c.today.weekday() - weekday) % 7
    return c.days(c.today - timedelta(days=back or 7 if mod in ("last", "this past", "past") else back))


_MONTH = rf"(?P<mon>{w.MONTH_RE})\b\.?"
_YEAR_AFTER = r"(?:,?\s+(?:of\s+)?(?:(?P<y>[0-9]{4})(?![0-9])|(?P<ry>last|this|next)\s+year\b))?"


@_rule(rf"\b(?:the\s+)?(?P<d>[0-9]{{1,2}})(?P<ord>st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}{_YEAR_AFTER}")
@_rule(rf"\b(?:(?P<cue>in|during|of|from|through|throughout|around|until|till|by)\s+)?"
       r"(?:(?P<mod>last|this\s+past|this\s+coming|this|next|early|mid|late"
       rf"|(?:the\s+)?(?:end|beginning|start|middle)\s+of)[\s-]+)?{_MONTH}"
       rf"(?:\s+(?:the\s+)?(?P<d>[0-9]{{1,2}})(?P<ord>st|nd|rd|th)?(?![0-9]))?{_YEAR_AFTER}")
def _month(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    groups = m.groupdict()
    raw = m["mon"]
    name = raw.lower()
    mod = w.norm(groups.get("mod") or "").removeprefix("the ").removesuffix(" of")
    day = int(m["d"]) if m["d"] else None
    has_year = bool(m["y"] or m["ry"])
    if name == "may" and raw[0] == "m" and not (has_year or m["ord"]):
        return None  # "she may go", "may i ask"
    if not (anchored or day or has_year or mod or groups.get("cue") or name in w.PLAIN_MONTHS):
        return None  # "June went camping", "the march"
    year = (int(m["y"]) if m["y"] else c.today.year + w.RELATIVE[m["ry"].lower()]) if has_year else None
    return c.month_or_day(w.MONTHS[name], day, year, mod)


@_rule(r"\b(?:(?P<cue>in|during|over|through|throughout|for|of)\s+)?"
       r"(?:(?P<mod>the|last|this\s+past|this\s+coming|this|next|past)\s+)?(?P<s>spring|summer|autumn|fall|winter)\b"
       r"(?:,?\s+(?:of\s+)?(?P<y>[0-9]{4})(?![0-9]))?")
def _season(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    season, mod = m["s"].lower(), w.norm(m["mod"] or "")
    strong = m["y"] or mod not in ("", "the")
    if not (strong or anchored or m["cue"] or (mod == "the" and season not in w.AMBIGUOUS_SEASONS)):
        return None  # "summer camp", "the spring", "after the fall"
    first_month = w.SEASON_START[season]

    def starting(year: int) -> _Span:
        first = date(year, first_month, 1)
        return _Span(c.at(first), c.at(w.add_months(first, 3)))

    if m["y"]:
        return starting(int(m["y"]))
    latest = c.today.year if date(c.today.year, first_month, 1) <= c.today else c.today.year - 1
    current = starting(latest).end > c.now
    if mod in ("last", "past", "this past"):
        return starting(latest - 1 if current else latest)
    if mod in ("next", "this coming"):
        return starting(latest + 1)
    if mod == "this":
        return starting(latest if current else c.today.year)
    return starting(latest)


@_rule(r"\b(?:(?P<cue>on|at|over|for|during|around|by)\s+)?(?:(?P<mod>last|this\s+past|this|next)\s+)?"
       rf"(?P<h>{w.HOLIDAY_RE})\b(?:,?\s+(?P<y>[0-9]{{4}})(?![0-9]))?")
def _holiday(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    mod = w.norm(m["mod"] or "")
    if not (anchored or m["cue"] or mod or m["y"]):
        return None  # "the Christmas tree"
    month, day = w.holiday_date(m["h"])
    if m["y"]:
        return c.days(date(int(m["y"]), month, day))
    this_year = date(c.today.year, month, day)
    if mod == "this":
        return c.days(this_year)
    if mod == "next":
        return c.days(this_year if this_year > c.today else date(c.today.year + 1, month, day))
    if mod in ("last", "this past"):
        return c.days(this_year if this_year < c.today else date(c.today.year - 1, month, day))
    return c.days(this_year if this_year <= c.today else date(c.today.year - 1, month, day))


@_rule(r"(?:\b(?:in|during|throughout|of|by)\s+)?(?<![A-Za-z0-9/:.$#-])(?P<y>(?:19|20)[0-9]{2})"
       rf"(?![A-Za-z0-9%年]|[-/:.,][0-9]|\s+(?:{w.COUNTED})\b)")
def _year(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.year(int(m["y"]))


@_rule(rf"\b(?:the\s+)?(?P<y>(?:19|20)[0-9]0){w.APOS}?s\b")
def _decade(m: re.Match[str], c: _Ctx, anchored: bool) -> _Span | None:
    return c.year(int(m["y"]), 10)


_ZH_FROM = len(_RULES)  # the rules from here on are Chinese: they read the folded query
_RULES.extend(zh.RULES)
