"""The Browser caption of a memory (``title``, graphmem.models.caption)."""

from __future__ import annotations

from graphmem.models import CAPTION_CHARS, caption


def test_caption_is_the_start_of_the_content_on_one_line() -> None:
    assert caption("Caroline  went\nhiking.") == "Caroline went hiking."
    long = caption("word " * 40)
    assert len(long) == CAPTION_CHARS
    assert long.endswith("\u2026")
