"""The formula's text term (pure): the share of the query's content words a memory contains, squared.

The query's content words (``textquery.content_words``: no function words or auxiliaries; a Chinese run as its
particle-free bigrams) are lowercased and lightly stemmed (a possessive dropped, one of -ing, -ed, -es, -s cut when
three letters stay), and a memory contains a word when its lowercased content holds it at the start of a word
("lesson" in "Lessons", "jogg" in "jogging", not "live" in "deliveries"); a Chinese bigram anywhere. Cypher
computes the same with ``toLower``, ``replace`` and ``CONTAINS`` (``retrieval/search``).

Why the share of words, not the full-text score: a BM25 score over the best seed's gives a memory that shares one
common word with the query ("takes" in "... will take place in Lisbon") 1.0 whenever nothing matches better, and
a memory in the other language of a bilingual store cannot match at all, so that one word outranked the Chinese
answer to an English question. Why squared: one word of four says little (1/16), all four much (1). Held out on
LoCoMo (leave-one-conversation-out, benchmarks/results/fit_ranking-both.json) it gives more than the score did.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphmem.retrieval.textquery import content_words

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")  # as textquery's: a Chinese piece
_SUFFIXES = ("ing", "ed", "es", "s")
_MIN_STEM = 3


def stem(word: str) -> str:
    """Lowercase, without a possessive or (when three letters stay) one of -ing, -ed, -es, -s."""
    w = word.lower().replace("\u2019", "'").split("'")[0]
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= _MIN_STEM:
            return w[: -len(suffix)]
    return w


def query_words(query: str) -> tuple[str, ...]:
    """The query's distinct content words, stemmed, in order (what ``coverage`` looks for)."""
    return tuple(dict.fromkeys(w for w in (stem(t) for t in content_words(query)) if w))


WORD_BREAKS = ("\n", "\t", "\r", '"', "'", "(", "[", "/", "-", "\u2018", "\u201c")
"""Characters that may stand before a word besides a space: read as spaces before matching."""


def needles(words: Sequence[str]) -> tuple[str, ...]:
    """What ``coverage`` looks for: a word at the start of a word (" " + word: "live" is not in "deliveries"), a
    Chinese bigram anywhere (Chinese has no spaces)."""
    return tuple(w if _CJK.match(w) else " " + w for w in words)


def coverage(content: str | None, words: Sequence[str]) -> float:
    """(share of ``words`` that the lowercased ``content`` holds at a word start) squared; 0 without words or
    content."""
    if not words or not content:
        return 0.0
    text = " " + content.lower()
    for ch in WORD_BREAKS:
        text = text.replace(ch, " ")
    share = sum(1 for n in needles(words) if n in text) / len(words)
    return share * share


__all__ = ["WORD_BREAKS", "coverage", "needles", "query_words", "stem"]
