"""The screen's ``trigger_string`` rule: AgentPoison-like runs of tokens that are not words (pure, no I/O).

AgentPoison (arXiv 2407.12784) optimises a short token string that pulls a record into retrieval; what it finds reads
as nonsense: mixed-case fragments, letters mixed with digits or rare symbols, runs without vowels, runs of
punctuation. ``graphmem.security.screening`` calls ``trigger_hits`` and weighs what it returns like any rule's hit.
"""

from __future__ import annotations

import itertools
import re
import string
from typing import Final

__all__ = ["SPAN_MAX", "trigger_hits"]

SPAN_MAX: Final = 80
_I = re.IGNORECASE
_CAMEL = re.compile(r"(?:[A-Z][a-z]*|[a-z]*[aeiouy][a-z]*)(?:[A-Z][a-z]*[aeiouy][a-z]*){1,3}s?")
_LETTER_DIGIT_ALT = re.compile(r"[A-Za-z]+[0-9]+[A-Za-z]+[0-9]*")
_NO_VOWEL = re.compile(r"[b-df-hj-np-tv-xz]{5,}", _I)
_ODD_SYMBOL = re.compile(r"[A-Za-z0-9][^\w\s'.,!?:;\-/&@#()\"*][A-Za-z0-9]")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_PUNCT_RUN = re.compile(r"[^\w\s\u4e00-\u9fff]{6,}")
_SAFE_TOKEN = re.compile(r"^(?:https?://|www\.|[\w.+-]+@|#|@)", _I)
_RARE = "{}[]^~|\\<>`"
_NOISE = frozenset("^~|\\<>#@%$")
"""Marks that code rarely strings together: a punctuation run needs two kinds of them. Code's own runs are
brackets, quotes and separators (``'})-[:`` in Cypher, ``([...],`` in Python)."""
_SHAPE = str.maketrans({
    **{c: "v" if c in "aeiouy" else "c" for c in string.ascii_lowercase},
    **{c: "V" if c in "AEIOUY" else "C" for c in string.ascii_uppercase},
    **dict.fromkeys(string.digits, "0"), **dict.fromkeys(string.punctuation, "."), **dict.fromkeys(_RARE, "#")})
_MIXED = ("cC", "cV", "vC", "vV", "c0", "v0", "C0", "V0")


def _is_odd(token: str) -> bool:
    """A token that is not a word: mixed-case nonsense, letters mixed with digits or rare symbols, no vowels."""
    if _SAFE_TOKEN.match(token):
        return False
    word = _EDGE.sub("", token)
    if len(word) < 3:
        return False
    if _ODD_SYMBOL.search(word) or (len(word) >= 4 and _LETTER_DIGIT_ALT.fullmatch(word)):
        return True
    if not (word.isascii() and word.isalpha()):
        return False
    switches = sum(1 for a, b in itertools.pairwise(word) if a.islower() != b.islower())
    if switches >= 2 and not word.isupper() and not _CAMEL.fullmatch(word):
        return True
    return bool(_NO_VOWEL.search(word)) and len(set(word.lower())) >= 3


def trigger_hits(plain: str, tokens: list[str]) -> list[tuple[str, float]]:
    """>= 3 odd tokens among 5 in a row; a run of >= 6 punctuation marks of >= 4 kinds, two of them ``_NOISE``.
    A character-class "shape" of the text (str.translate and str.count, no regex) decides cheaply whether to look
    closer."""
    hits: list[tuple[str, float]] = []
    shape = plain.translate(_SHAPE)
    rare = shape.count("#")
    if sum(shape.count(pair) for pair in _MIXED) + rare >= 3 or "ccccc" in shape:
        # translate keeps every character in place, so the shape's tokens line up with the text's
        odd = [not (sh.isalpha() and sh.islower() and "ccccc" not in sh) and _is_odd(t)
               for t, sh in zip(tokens, shape.split(), strict=True)]
        best, best_at = 0, 0
        for start, is_odd in enumerate(odd):
            count = sum(odd[start:start + 5])
            if is_odd and count > best:
                best, best_at = count, start
        if best >= 3:
            span = " ".join(tokens[best_at:best_at + 5])[:SPAN_MAX]
            hits.append((span, 0.8 if best >= 4 else 0.6))
    if rare >= 2 or not plain.isascii():
        for match in _PUNCT_RUN.finditer(plain):
            kinds = set(match.group())
            if len(kinds) >= 4 and len(kinds & _NOISE) >= 2:
                hits.append((match.group()[:SPAN_MAX], 0.5))
                break
    return hits
