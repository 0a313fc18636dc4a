"""The formula's text term (pure): how much of the query's content words a memory contains, squared.

The query's content words (``textquery.content_words``: no function words or auxiliaries; a Chinese run as its
particle-free bigrams) are lowercased and lightly stemmed (a possessive dropped, one of -ing, -ed, -es, -s cut when
three letters stay), and a memory contains a word when its lowercased content holds it at the start of a word
("lesson" in "Lessons", "jogg" in "jogging", not "live" in "deliveries"), or right after a Chinese character
("python" in "编程语言是Python"); a Chinese bigram anywhere. Cypher computes the same with ``toLower``, ``replace``,
``split`` and ``CONTAINS`` (``retrieval/search``).

Each word weighs its inverse document frequency among the search's candidates (``word_weights``:
``ln(1 + N / (1 + n))``, N candidates of which n hold it): a word that nearly every candidate holds tells them
apart little. In a chat between Caroline and Melanie most memories say one of the names, so "What do Melanie's
kids like?" gave every turn that said "Melanie" and "kids" (a thank-you to Melanie about Caroline's adoption plans)
the full share; weighted, "kids" and "like" count for more than the name. Held out on LoCoMo
(leave-one-conversation-out, benchmarks/results/fit_ranking-both.json) the weighted share gives more than the
plain one; the weights come from the candidates, so they need no corpus statistics and no index.

Why the share of words, not the full-text score: a BM25 score over the best seed's gives a memory that shares one
common word with the query ("takes" in "... will take place in Lisbon") 1.0 whenever nothing matches better, and
a memory in the other language of a bilingual store cannot match at all, so that one word outranked the Chinese
answer to an English question. Why squared: one word of four says little (1/16), all four much (1).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from graphmem.retrieval.textquery import bare, content_words
from graphmem.zhtext import CJK, HAN

_SUFFIXES = ("ing", "ed", "es", "s")
_MIN_STEM = 3


def stem(word: str) -> str:
    """Lowercase, without a possessive or (when three letters stay) one of -ing, -ed, -es, -s."""
    w = bare(word)
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
    return tuple(w if CJK.match(w) else " " + w for w in words)


_GLUED = re.compile(f"([{HAN}])(?=[^{HAN} ])")
"""A Chinese character with something else than Chinese or a space right after it."""


def searchable(content: str | None) -> str:
    """The content as the needles are looked for in it: a space, then lowercased, each of ``WORD_BREAKS`` a space,
    and a space after each Chinese character that anything but Chinese or a space follows. Chinese is written without
    spaces, so a word in it starts right after a Chinese character: "编程语言是Python" holds " python" (a needle is
    a Chinese piece or a word: no needle holds both, and a Chinese piece is found with the spaces in or not)."""
    text = " " + (content or "").lower()
    for ch in WORD_BREAKS:
        text = text.replace(ch, " ")
    return _GLUED.sub(r"\1 ", text)


def word_weights(contents: Iterable[str | None], found: Sequence[str]) -> tuple[float, ...]:
    """Per needle of ``found``: ``ln(1 + N / (1 + n))`` over the N ``contents``, n of which hold it."""
    texts = [searchable(c) for c in contents]
    return tuple(math.log1p(len(texts) / (1 + sum(1 for t in texts if needle in t))) for needle in found)


def held_share(text: str, found: Sequence[str], weights: Sequence[float] = ()) -> float:
    """(the ``weights`` of the needles ``found`` that the ``searchable`` text holds, over all of them) squared; every
    needle weighs 1 without weights; 0 without needles."""
    if not found:
        return 0.0
    if not weights:
        share = sum(1 for n in found if n in text) / len(found)
    else:
        total = sum(weights)
        share = sum(w for n, w in zip(found, weights, strict=True) if n in text) / total if total > 0 else 0.0
    return share * share


def coverage(content: str | None, words: Sequence[str], weights: Sequence[float] = ()) -> float:
    """``held_share`` of the query ``words`` in ``content`` (0 without content)."""
    if not content:
        return 0.0
    return held_share(searchable(content), needles(words), weights)


__all__ = ["WORD_BREAKS", "coverage", "held_share", "needles", "query_words", "searchable", "stem", "word_weights"]
