"""Chinese text: what counts as a Chinese character (``HAN``, ``CJK``), and text folded for matching, shared by
the time parser (``retrieval.timeparse_zh``) and the entity extractor's Chinese dates (``graph.entities_zh``).

:func:`fold` keeps a text's length, character for character, so an offset found in the folded text is one in the
original: a character whose NFKC form is one character becomes that form (a full-width digit U+FF10..FF19 its
ASCII digit, the ideographic space a space, a CJK compatibility ideograph the unified one), and the traditional
forms of the few characters the Chinese time words are written with become simplified (``上週五`` -> ``上周五``,
``兩個月`` -> ``两个月``). An ASCII text comes back as it is.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["CJK", "HAN", "fold"]

HAN = "\u3400-\u9fff\uf900-\ufaff"
"""The Chinese characters' ranges (CJK unified ideographs, extension A, compatibility ideographs), as a character
class holds them; the one definition the text matching, the entity extractor, the bilingual embedder and the
schema's check share (``cypher/retrieval/search.cypher`` writes the same ranges out)."""
CJK = re.compile(f"[{HAN}]")
"""One Chinese character."""

_TRADITIONAL = str.maketrans("週個兩禮後這號來幾時間氣", "周个两礼后这号来几时间气")


@lru_cache(maxsize=4096)
def _nfkc_char(char: str) -> str:
    folded = unicodedata.normalize("NFKC", char)
    return folded if len(folded) == 1 else char


def fold(text: str) -> str:
    """`text` with full-width and compatibility forms and the traditional time characters folded; same length."""
    if text.isascii():
        return text
    if not unicodedata.is_normalized("NFKC", text):
        text = "".join(map(_nfkc_char, text))
    return text.translate(_TRADITIONAL)
