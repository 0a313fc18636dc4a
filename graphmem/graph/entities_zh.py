"""Entities in Chinese text (any CJK run), for ``graph.entities``: ``jieba.posseg``'s part-of-speech tags.

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

__all__ = ["CJK", "chinese_entities"]

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
"""A CJK ideograph: a text holding one is read by jieba too."""

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


def chinese_entities(text: str) -> list[tuple[int, str, str]]:
    """``(offset, word, kind)`` of the nouns jieba tags in ``text`` (nr/ns/nt/nz/n/vn, length >= 2; nr -> person,
    ns -> place, a kinship word -> person) and its time words (t) as dates."""
    out: list[tuple[int, str, str]] = []
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
        out.append((start, w, "person" if w in lex.KIN else lex.ZH_KEEP[flag]))
    return out
