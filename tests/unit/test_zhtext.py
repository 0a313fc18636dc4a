"""The fold shared by the Chinese time rules and Chinese dates (graphmem.zhtext)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphmem.zhtext import fold


def test_full_width_digits_and_traditional_time_characters_fold() -> None:
    assert fold("\uff12\uff10\uff12\uff14年\uff13月") == "2024年3月"
    assert fold("上週五\uff0c兩個月後") == "上周五,两个月后"  # NFKC: the full-width comma too
    assert fold("\u3000") == " "


def test_ascii_and_simplified_text_is_unchanged() -> None:
    text = "What did Caroline do last Friday? 她上周五去了北京。"
    assert fold(text) == text


@given(st.text(max_size=50))
def test_the_fold_keeps_the_length(text: str) -> None:
    assert len(fold(text)) == len(text)
