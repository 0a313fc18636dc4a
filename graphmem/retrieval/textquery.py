"""The full-text channel's query: the question's content words, Lucene-escaped.

Neo4j's "english" analyzer stems and drops only Lucene's 33 English stop words, so "what", "did", "how" or "you"
still match every memory that says them ("Caroline: Cool! What did it look like?" came back in unrelated top-5s
for matching "what did"). The query keeps only words that carry meaning: the extractor's function words and
auxiliary verbs are dropped here, on the query side, where it costs nothing and needs no re-index. Chinese runs
become bigram phrases (``lucene_escape``); a bigram that holds a particle ("的", "了", "吗" ...) is dropped."""

from __future__ import annotations

import re
from itertools import combinations

from graphmem.graph.entity_words import FUNCTION
from graphmem.store.store import lucene_escape
from graphmem.zhtext import CJK, HAN

_AUX = frozenset(str.split("""am is are was were be been being have has had having do does did done doing will would
shall should can could may might must get got gets let lets ok okay"""))
STOP = FUNCTION | _AUX
_ZH_PARTICLES = frozenset("的了吗呢吧啊呀哦嘛是在和与及或也都就又被把给着过么")
_TOKEN = re.compile(rf"[{HAN}]+|[^\W_{HAN}]+(?:['\u2019][^\W_{HAN}]+)*|\S", re.UNICODE)
"""A run of Chinese characters, a word (letters and digits, possessive included), or any other character. A word
stops at a Chinese character (they are ``\\w`` too): "Python是什么语言" is "Python" and the run "是什么语言", not
one word, so the run is cut into bigrams as pure Chinese is, whatever script stands before or after it."""
_FRAME = re.compile(r"\b(?:kinds?|types?|sorts?|names?|forms?|ways?|things?)\s+(?=of\b)", re.I)
"""A question's frame noun before "of" ("what kind of art", "the names of John's children"): it says what form
the answer takes, not what it is about, and matched "Thanks for your kind words" to "What kind of art does
Caroline make?". Dropped from the query's words (``benchmarks/README.md``, "answer-type term")."""


def bare(word: str) -> str:
    """Lowercase, without a possessive ("Caroline's" -> "caroline"): a word as the index and the text term see it."""
    return word.lower().replace("\u2019", "'").split("'")[0]


def content_words(text: str) -> list[str]:
    """The query's tokens without stop words or frame nouns (``_FRAME``), in order; CJK runs split into their
    particle-free bigrams."""
    out: list[str] = []
    for token in _TOKEN.findall(_FRAME.sub(" ", text)):
        if CJK.match(token):
            out.extend(_zh_pieces(token))
        elif token[0].isalnum() and bare(token) not in STOP:
            out.append(token)
    return out


def _zh_pieces(run: str) -> list[str]:
    if len(run) == 1:
        return [] if run in _ZH_PARTICLES else [run]
    pairs = [run[i:i + 2] for i in range(len(run) - 1)]
    return [p for p in pairs if not (set(p) & _ZH_PARTICLES)]


MIN_MATCH_FROM = 3
"""From this many distinct content words on, a memory must hold two of them to be a full-text seed. With any one,
a memory sharing one common word with the question ("takes" in "... will take place in Lisbon") was a seed, and
in a small store (every memory a vector seed too) the best fused one: it outranked the Chinese memory an English
question was about (tests/integration/test_bilingual.py). On LoCoMo it costs .006 held-out recall@10
(benchmarks/README.md, "fit_ranking.py")."""
PAIR_WORDS = 8
"""The pairs are built from the first this many words (28 pairs)."""


def fulltext_query(text: str) -> str | None:
    """The escaped Lucene query for ``text`` (any two of its content words from ``MIN_MATCH_FROM`` words on, else
    any one), or None when nothing in it is worth matching."""
    words = content_words(text)
    if not words:
        return None
    # CJK pieces are whole bigrams already: quote them so the single-character index matches them as phrases.
    parts = [f'"{w}"' if CJK.match(w) and len(w) > 1 else lucene_escape(w) for w in words]
    # distinct as the index sees them (lowercase, no possessive), each in its first spelling
    first: dict[str, str] = {}
    for part in parts:
        if part.strip():
            first.setdefault(bare(part), part)
    parts = list(first.values())
    if len(parts) >= MIN_MATCH_FROM:  # any two of them: (a AND b) OR (a AND c) ...
        return " OR ".join(f"({a} AND {b})" for a, b in combinations(parts[:PAIR_WORDS], 2))
    return " ".join(parts) or None
