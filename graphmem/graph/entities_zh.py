"""Entities in Chinese text (any CJK run), for ``graph.entities``: ``jieba.posseg``'s part-of-speech tags, and
Chinese date expressions (``entity_words.ZH_DATE_RE``: 2024年3月, 去年五月, 上周五, 两周前, ...), each one entity of
kind date named as written, folded (:func:`graphmem.zhtext.fold`: ``２０２４年３月`` is ``2024年3月``, ``上週五`` is
``上周五``), as an English date is named as written, lowercased. jieba's words inside a date give way to it (a
word jieba keeps that a date would cut across wins: 王明 of 王明天天); the English rules do not see a date
(:func:`latin_view`), so ``2024年3月`` is no year ``2024``.

jieba is imported lazily, once, with its log silenced. It ships its dictionary (``jieba/dict.txt``) inside the
package and needs no network or model download at run time (it may write a parse cache to the temp dir, and goes
on if it cannot).
"""

from __future__ import annotations

import logging
import re
import threading
import warnings
from typing import Any

from graphmem.graph import entity_words as lex
from graphmem.zhtext import CJK, fold

__all__ = ["chinese_dates", "chinese_entities", "latin_view"]


_DATE = re.compile(lex.ZH_DATE_RE)

_jieba_lock = threading.Lock()
_posseg: Any = None


def _jieba() -> Any:
    """jieba.posseg, imported and initialised once; its log and import-time warnings are silenced."""
    global _posseg
    if _posseg is None:
        with _jieba_lock:
            if _posseg is None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # invalid escape sequences / pkg_resources in jieba 0.42
                    import jieba  # type: ignore[import-untyped]
                    import jieba.posseg as posseg  # type: ignore[import-untyped]

                    jieba.setLogLevel(logging.ERROR)
                    posseg.dt.initialize()
                _posseg = posseg
    return _posseg


def chinese_dates(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, name)`` of the Chinese date expressions in ``text``; the name is the expression folded."""
    return [(m.start(), m.end(), m[0]) for m in _DATE.finditer(fold(text))]


def latin_view(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with its CJK ideographs and the ``[start, end)`` spans (the Chinese dates) each replaced by ``|``
    (same offsets), for the English rules: CJK runs become boundaries, and a date's digits no year of their own."""
    view = list(CJK.sub("|", text))
    for start, end in spans:
        view[start:end] = "|" * (end - start)
    return "".join(view)


def _jieba_words(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, word, kind)`` of the nouns jieba tags in ``text`` (nr/ns/nt/nz/n/vn, length >= 2; nr ->
    person, ns -> place, a kinship word -> person) and its time words (t) as dates."""
    out = []
    pos, before = 0, ""
    for word, flag in _jieba().cut(text):
        start = text.find(word, pos)
        if start < 0:
            continue
        pos, w, prefix = start + len(word), word.strip(), before
        before = w
        if len(w) == 1 and flag == "nr" and prefix in ("小", "老", "阿"):  # 小李, 老王: jieba splits them
            w, start = prefix + w, start - 1
        if len(w) < 2 or not CJK.search(w) or w in lex.ZH_STOP or flag not in lex.ZH_KEEP:
            continue
        kind = "person" if w in lex.KIN else "thing" if w in lex.ZH_NOT_DATE else lex.ZH_KEEP[flag]
        out.append((start, start + len(w), w, kind))
    return out


def chinese_entities(text: str) -> list[tuple[int, int, str, str]]:
    """``(start, end, name, kind)`` of the Chinese dates in ``text`` (:func:`chinese_dates`) and of the words
    jieba keeps outside them. A word jieba keeps wins over a date that cuts across it (王明 of 王明天天, not 明天);
    the words inside a date give way to it (去年 and 五月 of 去年五月)."""
    words = _jieba_words(text)
    dates = [(a, b, name, "date") for a, b, name in chinese_dates(text)
             if not any(s < b and a < e and not a <= s < e <= b for s, e, _, _ in words)]
    return dates + [word for word in words if not any(a < word[1] and word[0] < b for a, b, _, _ in dates)]
