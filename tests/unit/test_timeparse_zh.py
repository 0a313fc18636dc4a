"""Chinese time expressions (graphmem.retrieval.timeparse_zh): spelt years, full-width digits, 的, traditional
forms, 五月天. The common forms are in test_timeparse.py's CHINESE."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from graphmem.retrieval.timeparse import parse_time_range

NOW = datetime(2026, 12, 9, 12, 0, tzinfo=UTC)  # a Wednesday
MAY_2023 = ("2023-05-01", "2023-06-01")


def days(query: str) -> tuple[str, str] | None:
    found = parse_time_range(query, NOW)
    return None if found is None else (found.start.date().isoformat(), found.end.date().isoformat())


@pytest.mark.parametrize(("query", "expected"), [
    ("二〇二三年五月", MAY_2023),
    ("二零二三年五月", MAY_2023),
    ("她二〇二三年五月去了哪里", MAY_2023),
    ("二〇二三年", ("2023-01-01", "2024-01-01")),
    ("二零二二年五月八日", ("2022-05-08", "2022-05-09")),
])
def test_a_year_spelt_in_chinese_numerals_is_that_year(query: str, expected: tuple[str, str]) -> None:
    assert days(query) == expected


def test_a_spelt_year_wins_over_a_relative_expression_before_it() -> None:
    assert days("昨天还是二〇二〇年") == ("2020-01-01", "2021-01-01")


@pytest.mark.parametrize(("query", "ascii_form"), [
    ("\uff12\uff10\uff12\uff14年\uff13月", "2024年3月"),
    ("2024年\uff13月", "2024年3月"),
    ("\uff13天前", "3天前"),
    ("\uff15月\uff18日", "5月8日"),
    ("\uff12\uff10\uff12\uff11年", "2021年"),
])
def test_full_width_digits_read_as_ascii_ones(query: str, ascii_form: str) -> None:
    assert days(query) == days(ascii_form)
    assert days(query) is not None
    found = parse_time_range(query, NOW)
    assert found is not None
    assert found.text == query  # the expression as written


def test_de_between_year_and_month() -> None:
    assert days("去年的五月") == ("2025-05-01", "2025-06-01")
    assert days("去年的五月") == days("去年五月")
    assert days("2023年的5月") == MAY_2023


@pytest.mark.parametrize(("traditional", "simplified"), [
    ("上週五", "上周五"),
    ("上個月", "上个月"),
    ("兩週前", "两周前"),
    ("這個禮拜", "这个礼拜"),
    ("三個月後", "三个月后"),
    ("五月八號", "五月八号"),
    ("近來", "近来"),
])
def test_traditional_forms_read_as_simplified_ones(traditional: str, simplified: str) -> None:
    assert days(simplified) is not None
    assert days(traditional) == days(simplified)


def test_wuyuetian_the_band_is_not_may() -> None:
    assert parse_time_range("五月天", NOW) is None
    assert parse_time_range("五月天的演唱会", NOW) is None
    assert days("我去年去了五月天的演唱会") == ("2025-01-01", "2026-01-01")  # 去年, not May
    may = ("2026-05-01", "2026-06-01")
    assert days("五月") == may
    assert days("五月天气怎么样") == may
    assert days("五月天天下雨") == may
    assert days("五月三日") == ("2026-05-03", "2026-05-04")
    assert days("5月天气") == may

