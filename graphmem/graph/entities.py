"""Offline, rule-based entity extraction for memory contents (English and Chinese).

``extract_entities(text)`` returns the people, places, things, activities, dates and topics a short memory
mentions, keyed by a normalised ``name`` (:func:`normalise_name`), for linking memories in the graph. It favours
speed and predictability (thousands of texts a second on one core) over linguistic depth:

* English: regexes and small hand-written lexicons (:mod:`graphmem.graph.entity_words`). Dates ("May 2023",
  "last Saturday", holidays) come first; capitalised sequences not at a sentence start are proper names; runs of
  content words between stopwords are noun phrases; gerunds are activities when used as nouns or named hobbies.
  A verb ends a phrase: the forms of common verbs always ("refunds | arrive"), words that are nouns or verbs
  when their context makes them verbs ("my parents | cook dinner", "the class | sounds fun", "she | paints").
  Image captions are unwrapped.
* Chinese (any CJK text): ``jieba.posseg`` (``graph.entities_zh``), keeping nr/ns/nt/nz/n/vn nouns of length
  >= 2 (nr -> person, ns -> place) and time words (t) as dates; a Chinese date expression (2024年3月, 去年五月,
  上周五, 两周前) is one date named as written (full-width digits and traditional forms folded); Latin words
  inside go through the English rules.

spaCy is not used: the PyPI packages that wrap its models are unofficial mirrors of unclear provenance, and
loading one is far slower than this. Accuracy: ``benchmarks/entity_extraction.py`` on a hand-labelled sample.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from graphmem.graph import entity_words as lex
from graphmem.graph.entities_zh import chinese_entities, latin_view
from graphmem.zhtext import CJK as _CJK

__all__ = ["KINDS", "Entity", "entities_in", "extract_entities", "normalise_name"]

KINDS = ("person", "place", "thing", "activity", "date", "topic")


@dataclass(frozen=True)
class Entity:
    name: str  # normalised key (see normalise_name)
    kind: str  # one of KINDS, best effort; "thing" when unsure
    surface: str  # the text as it appeared


_NO_SINGULAR = re.compile(lex.NO_SINGULAR_RE)
_OES_S = re.compile(lex.OES_S_RE)
_NATIONALITY = re.compile(lex.NATIONALITY_RE, re.I)

_ADJ_SUFFIX = re.compile(lex.ADJ_SUFFIX_RE)
_Q = "'\u2019"  # apostrophes: ASCII and right single quotation mark
_CONTRACTION = re.compile(rf"[{_Q}](?:m|re|ve|ll|d|t|s)$|n[{_Q}]t$", re.I)
_MODAL_END = re.compile(r"[\'\u2019](?:ll|d)$|n[\'\u2019]t$")

_TOKEN = re.compile(rf"[A-Za-z0-9]+(?:[-{_Q}][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_MAX_WORD = 40  # longer "words" (hashes, URLs, junk) are never names
_SENT_END = frozenset(".!?;:[]()\"\u201c\u201d\u3002\uff01\uff1f\uff1b\uff1a")
_PUNCT = "\"'`.,;:!?()[]{}<>*_/\\|~#-\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014\u3001\uff0c\u3002"
_POSS_END = re.compile(rf"[{_Q}]s$", re.I)
_CAPTION = re.compile(
    r"\[\s*(?:shares?|shared|sends?|sent|posts?|posted)\b[^\]:]*:\s*"
    r"(?:(?:a|an|the)\s+)?(?:(?:photo|picture|image|pic|screenshot|selfie|snapshot)s?\s+(?:of|showing|with)\s+)?"
    r"([^\]]*)\]", re.I)

_DATE = re.compile(lex.DATE_RE)

def _singular(word: str) -> str:
    if word in lex.IRREGULAR or len(word) <= 3 or not word.endswith("s") or _NO_SINGULAR.search(word):
        return lex.IRREGULAR.get(word, word)
    if word.endswith("ies"):
        return word[:-1] if word in lex.IES_S else word[:-3] + "y"
    if word.endswith("oes"):
        return word[:-1] if _OES_S.fullmatch(word) else word[:-2]
    if re.search(r"(?:ch|sh|ss|x|zz)es$", word):
        return word[:-2]
    return word[:-1]


def _is_adverb(word: str) -> bool:
    return word in lex.ADVERBS or (word.endswith("ly") and word not in lex.LY_NOUNS)


def _is_plural(word: str) -> bool:
    return word in lex.PLURAL_WORDS or (word.endswith("s") and _singular(word) != word)


def _normalise(text: str, *, proper: bool) -> str:
    s = " ".join(unicodedata.normalize("NFKC", text).split()).strip(_PUNCT + " ")
    s = _POSS_END.sub("", s).strip(_PUNCT + " ").lower()
    if not proper and s and not _CJK.search(s):
        head, _, last = s.rpartition(" ")
        s = f"{head} {_singular(last)}".strip()
    return s


def normalise_name(text: str, *, proper: bool | None = None) -> str:
    """Normalised entity key: compatibility forms folded (NFKC: full-width letters are ASCII ones), lowercase,
    possessive 's (ASCII or curly apostrophe) and surrounding punctuation stripped, inner whitespace collapsed; the
    last word is singularised unless it is capitalised (a proper name; ``proper`` overrides the guess). Chinese is
    kept as is.

    >>> normalise_name("Caroline's"), normalise_name(" pottery  classes! "), normalise_name("Paris")
    ('caroline', 'pottery class', 'paris')
    """
    if proper is None:
        words = text.split()
        proper = (words[-1].strip(_PUNCT) if words else "")[:1].isupper()
    return _normalise(text, proper=proper)


@dataclass
class _Tok:
    text: str
    start: int
    end: int
    word: bool
    low: str = ""  # lowercase, possessive stripped
    cap: bool = False
    poss: bool = False
    sent_start: bool = False
    date: bool = False


def _tokens(text: str, date_spans: list[tuple[int, int]]) -> list[_Tok]:
    toks: list[_Tok] = []
    sent_start, starts = True, [a for a, _ in date_spans]
    for m in _TOKEN.finditer(text):
        s = m.group()
        if not s[0].isalnum():
            toks.append(_Tok(s, m.start(), m.end(), False))
            sent_start = (sent_start or s in _SENT_END) and s != "|"  # "|": a CJK run, no sentence start after
            continue
        low = s.lower()
        base = low[:-2]
        poss = bool(_POSS_END.search(low)) and base not in lex.STOP and base not in lex.FILLER
        k = bisect.bisect_right(starts, m.start()) - 1
        date = k >= 0 and m.start() < date_spans[k][1]
        toks.append(_Tok(s, m.start(), m.end(), True, base if poss else low, s[0].isupper(), poss, sent_start, date))
        sent_start = False
    return toks


def _content_ok(t: _Tok) -> bool:
    """Whether a word may sit in a noun phrase (not a function word, verb, adverb, adjective or number)."""
    w = t.low
    if t.date or not 2 <= len(w) <= _MAX_WORD or w in lex.STOP or w in lex.WEAK or w in lex.VERB_ING or w[0].isdigit():
        return False
    if _CONTRACTION.search(w) or (w.endswith("ly") and w not in lex.LY_NOUNS):
        return False
    return not (w.endswith("ed") and len(w) >= 4 and w not in lex.ED_NOUNS)


def _is_gerund(w: str) -> bool:
    return w.endswith("ing") and len(w) >= 5 and w not in lex.ING_NOUNS


def _kind_common(name: str) -> str:
    head = name.rsplit(" ", 1)[-1]
    if head in lex.KIN:
        return "person"
    if head in lex.PLACE:
        return "place"
    if head in lex.DATE_WORDS and " " not in name:
        return "date"
    if head in lex.ACTIVITY or (_is_gerund(head) and " " not in name):
        return "activity"
    if head in lex.TOPIC or re.search(r"(?:ism|ology|ness)$", head):
        return "topic"
    return "thing"


def _kind_proper(words: list[_Tok], prev: _Tok | None, nxt: _Tok | None, before: _Tok | None) -> str:
    """``before``: the token before ``prev`` ("married" in "married to Joanna Petrov": a person, not a place)."""
    ends = {words[0].low, words[-1].low}
    if ends & lex.KIN or (prev is not None and prev.low in lex.PERSON_CUE) or words[-1].poss:
        return "person"
    if prev is not None and prev.low == "to" and before is not None and before.low in lex.TO_PERSON:
        return "person"
    if ends & lex.PLACE or (prev is not None and prev.low in lex.PLACE_CUE) or words[0].low in lex.NAME_PART:
        return "place"
    vocative = nxt is not None and nxt.text in ("!", ",", "?") and prev is not None and not prev.word
    return "person" if len(words) == 2 or vocative else "thing"


class _English:
    """One pass over the Latin part of a text: dates, proper names, noun phrases, activities."""

    def __init__(self, text: str, out: list[tuple[int, Entity]]) -> None:
        self.text, self.out = text, out
        spans: list[tuple[int, int]] = []
        for m in _DATE.finditer(text):
            surface = m.group().strip()
            out.append((m.start(), Entity(_normalise(surface, proper=True), "date", surface)))
            spans.append((m.start(), m.end()))
        self.toks = _tokens(text, spans)
        self.mid_caps = {t.low for t in self.toks if t.word and t.cap and not t.sent_start}

    def at(self, i: int) -> _Tok | None:
        return self.toks[i] if 0 <= i < len(self.toks) else None

    def proper(self, i: int) -> bool:
        t = self.toks[i]
        if not t.word or not t.cap or t.date or len(t.low) > _MAX_WORD or (not t.poss and _CONTRACTION.search(t.low)):
            return False
        nxt = self.at(i + 1)
        if t.low in lex.STOP:  # "New York", "Main Street"
            return t.low in lex.NAME_PART and nxt is not None and nxt.cap and not nxt.date and nxt.low not in lex.STOP
        if not t.sent_start:
            return True
        if t.low in lex.FILLER or t.low in lex.ACTIVITY or t.low in lex.KIN or t.low in lex.PLACE or _is_gerund(t.low):
            return t.low in self.mid_caps
        return t.poss or t.low in self.mid_caps or (nxt is not None and nxt.word and nxt.cap and not nxt.date)

    def emit(self, words: list[_Tok], kind: str | None, is_proper: bool) -> None:
        name = _normalise(" ".join(w.low for w in words), proper=is_proper)
        head = name.rsplit(" ", 1)[-1]
        weak = head in lex.WEAK or words[-1].low in lex.STOP or (len(words) == 1 and head in lex.FILLER)
        if len(name) >= 2 and not weak and re.search(r"[a-z]", name):
            surface = self.text[words[0].start:words[-1].end]
            self.out.append((words[0].start, Entity(name, kind or _kind_common(name), surface)))

    def run(self) -> None:
        toks, n, i = self.toks, len(self.toks), 0
        while i < n:
            t, prev = toks[i], self.at(i - 1)
            if not t.word or t.date:
                i += 1
                continue
            if self.proper(i):
                j = i + 1
                while j < min(n, i + 5) and toks[j].word and not toks[j - 1].poss and (
                        self.proper(j) or (toks[j].low == "of" and j + 1 < n and self.proper(j + 1))):
                    j += 1
                nxt = self.at(j)
                # a single acronym or nationality word before a common noun modifies it: "LGBTQ support group"
                modifier = (j == i + 1 and not t.poss and nxt is not None and nxt.word and _content_ok(nxt)
                            and ((t.text.isupper() and len(t.text) > 1) or bool(_NATIONALITY.search(t.low))))
                if not modifier:
                    self.emit(toks[i:j], _kind_proper(toks[i:j], prev, nxt, self.at(i - 2)), True)
                    i = j
                    continue
            if self.verb_at(i, i):
                i += 1
                continue
            j = i + 1 if self.proper(i) or _content_ok(t) else i
            verb = False  # the run ends at a verb: anything after it is a new phrase
            while j < n and not toks[j - 1].poss and not self.proper(j) and _content_ok(toks[j]):
                if self.verb_at(j, i):
                    verb = True
                    break
                j += 1
            if j == i:
                i += 1
                continue
            self.phrase(toks[i:j], prev, self.at(j), self.verb_before(i))
            i = j + 1 if verb else j

    def verb_at(self, j: int, start: int) -> bool:
        """Whether word j, one that is a noun or a verb ("sounds", "cook", "attacks"), is a verb here; `start` is
        the first word of the noun phrase being read (j == start: j would begin one)."""
        t = self.toks[j]
        s_form = t.low in lex.NOUN_VERBS_S
        if not s_form and t.low not in lex.NOUN_VERBS_BASE:
            return False
        if j > start:  # agreement with the noun before: "payments settle", "the class sounds fun"
            before = self.toks[j - 1].low
            if not s_form:
                return _is_plural(before) and (before not in lex.PLURAL_MODIFIERS or self.signal(j + 1, content=False))
            return not _is_plural(before) and self.signal(j + 1)
        k = self.skip_adverbs(j) - 1
        prev = self.at(k)
        if prev is None or not prev.word:  # "Sounds great!", not "Prices drop"
            return s_form and t.sent_start and self.signal(j + 1, content=False)
        p = prev.low
        if prev.poss:  # "James's dance class", "Caroline's paints"
            return False
        if not s_form:  # "we hike", "to cook", "I'll call", "phone calls always cheer", not "went to camp"
            if p == "to":
                return k == 0 or self.toks[k - 1].low not in lex.MOTION
            return p in lex.SUBJECT_PL or p in lex.MODALS or _MODAL_END.search(p) is not None or (
                p not in lex.FUNCTION and p not in lex.PLURAL_MODIFIERS and _is_plural(p) and (
                    prev.sent_start or not prev.cap))
        if p in lex.SUBJECT_SG:  # "she paints", "it sounds"
            return True
        return prev.cap and p not in lex.STOP and self.signal(j + 1)  # "Caroline paints landscapes"

    def signal(self, k: int, *, content: bool = True) -> bool:
        """Whether token k can follow a verb but hardly a plural noun: an object (a content word, unless not
        `content`), a complement or an adverb."""
        t = self.at(k)
        if t is not None and t.word and _is_adverb(t.low):
            # "sounds really fun", but "our hiking trips always end": past adverbs, no object or verb
            k, content = self.skip_adverbs(k, 1), False
            t = self.at(k)
        return t is not None and t.word and (t.low in lex.SIGNAL or (content and _content_ok(t)) or t.low[0].isdigit())

    def skip_adverbs(self, i: int, step: int = -1) -> int:
        """Index of the first of the adverbs right before token i (i if none); with step=1, of the first word from
        token i on that is not an adverb."""
        k = i - 1 if step < 0 else i
        while 0 <= k < len(self.toks) and self.toks[k].word and _is_adverb(self.toks[k].low):
            k += step
        return k + 1 if step < 0 else k

    def verb_before(self, i: int) -> _Tok | None:
        """The word before token i, skipping adverbs ("is finally blooming" -> "is")."""
        return self.at(self.skip_adverbs(i) - 1)

    def phrase(self, words: list[_Tok], prev: _Tok | None, nxt: _Tok | None, verb: _Tok | None) -> None:
        while len(words) > 1 and words[0].low in lex.FILLER:  # "the afternoon knitting" -> "knitting"
            prev, words = words[0], words[1:]
        first = words[0]
        after_be = verb is not None and verb.low in lex.BE
        if len(words) == 1 and after_be and _ADJ_SUFFIX.search(first.low):
            return  # predicate adjective: "was absolutely magical"
        if _is_gerund(first.low) and not first.cap:
            nominal = first.sent_start or (prev is not None and prev.word and (
                prev.low in lex.DETS or prev.poss or prev.low in lex.ADJ or prev.low in lex.NUMBERS
                or bool(re.fullmatch(r"\d+(?:st|nd|rd|th)?", prev.low))))
            has_object = len(words) == 1 and nxt is not None and nxt.word and (
                nxt.low in lex.DETS or nxt.low in lex.PRONOUNS or (nxt.cap and not nxt.date and nxt.low not in lex.STOP)
            )
            if not nominal:
                # verbal use ("been painting", "study counseling"): an activity when it names one or has no
                # object and no auxiliary; whatever follows it in the run is its object, a phrase of its own
                if first.low in lex.ACTIVITY or (len(words) == 1 and not has_object and not after_be):
                    self.emit([first], "activity", False)
                words = words[1:]
            elif has_object and first.low not in lex.ACTIVITY:
                words = []
        if words:
            self.emit(words[-4:], None, False)


def _windows(text: str, size: int = 2000) -> list[str]:
    """Long texts are read in pieces cut at a sentence end (or a space), so the reading can stop at `limit`."""
    out, i = [], 0
    while len(text) - i > size:
        k = max(text.rfind(c, i, i + size) for c in ".!?\n\u3002\uff01\uff1f")
        k = k if k > i + size // 2 else text.rfind(" ", i, i + size)
        j = k + 1 if k > i else i + size
        out.append(text[i:j])
        i = j
    return [*out, text[i:]]


def extract_entities(text: str, *, limit: int = 12) -> list[Entity]:
    """Entities a memory mentions, deduplicated by name, in order of first appearance, at most `limit`."""
    if limit <= 0 or not text or not text.strip():
        return []
    seen: set[str] = set()
    result: list[Entity] = []
    for piece in _windows(_CAPTION.sub(lambda m: f"[{m.group(1)}]", text)):
        found: list[tuple[int, Entity]] = []
        if _CJK.search(piece):
            zh = chinese_entities(piece)
            found += [(start, Entity(name, kind, piece[start:end])) for start, end, name, kind in zh]
            # Latin words keep their offsets; CJK runs and Chinese dates become boundaries
            piece = latin_view(piece, [(start, end) for start, end, _, kind in zh if kind == "date"])
        _English(piece, found).run()
        for _, ent in sorted(found, key=lambda p: p[0]):
            if ent.name not in seen and len(ent.name) >= 2:
                seen.add(ent.name)
                result.append(ent)
                if len(result) >= limit:
                    return result
    return result


ENTITY_CACHE = 16384
"""Texts whose entities ``entities_in`` keeps: a write's graph construction and its answer kinds
(``graph.answer_kinds``) read the same extraction, and a search reads its candidates' again."""


@lru_cache(maxsize=ENTITY_CACHE)
def entities_in(text: str, limit: int) -> tuple[Entity, ...]:
    """``extract_entities(text, limit=limit)``, memoised (~0.25 ms a short text saved on each repeat)."""
    return tuple(extract_entities(text, limit=limit))

