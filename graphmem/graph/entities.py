"""Offline, rule-based entity extraction for memory contents (English and Chinese).

``extract_entities(text)`` returns the people, places, things, activities, dates and topics a short memory
mentions, keyed by a normalised ``name`` (:func:`normalise_name`), for linking memories in the graph. It favours
speed and predictability (thousands of texts a second on one core) over linguistic depth:

* English: regexes and small hand-written lexicons. Dates ("May 2023", "last Saturday", holidays) come first;
  capitalised sequences not at a sentence start are proper names; runs of content words between stopwords are
  noun phrases; gerunds are activities when used as nouns or named hobbies. Image captions are unwrapped.
* Chinese (any CJK text): ``jieba.posseg``, keeping nr/ns/nt/nz/n/vn nouns of length >= 2 (nr -> person,
  ns -> place) and time words (t) as dates; Latin words inside go through the English rules. jieba is imported
  lazily, once, with its log silenced. It ships its dictionary (``jieba/dict.txt``) inside the package and needs
  no network or model download at run time (it may write a parse cache to the temp dir, and goes on if it cannot).

spaCy is not used: the PyPI packages that wrap its models are unofficial mirrors of unclear provenance, and
loading one is far slower than this. Accuracy: ``benchmarks/entity_extraction.py`` on a hand-labelled sample.
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
import warnings
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "Entity", "extract_entities", "normalise_name"]

KINDS = ("person", "place", "thing", "activity", "date", "topic")


@dataclass(frozen=True)
class Entity:
    name: str  # normalised key (see normalise_name)
    kind: str  # one of KINDS, best effort; "thing" when unsure
    surface: str  # the text as it appeared


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_FUNCTION = _words("""a an the this that these those there here it its i me my mine myself we us our ours ourselves
you your yours yourself yourselves he him his himself she her hers herself they them their theirs themselves who
whom whose which what whatever when where why how whether if then than so as because since while though although
unless until till and or but nor not no yes yeah yep yup nope nah ok okay oh ooh ah aw aww wow whoa hey hi hello
hiya bye goodbye thanks thank congrats congratulations please sorry lol haha hahaha omg btw ugh hmm umm yay oops meh
yikes phew gosh well like just really very quite pretty too also even still already yet ever never always often
sometimes usually maybe perhaps probably definitely actually basically literally totally honestly seriously anyway
anyways again once twice soon now later today tonight tomorrow yesterday instead else almost enough anymore online
offline abroad overseas upstairs downstairs outdoors indoors nearby of in on at to for from with without by about
above below over under into onto upon out up down off through across around near behind beside between among against
along toward towards during before after inside outside within via per unlike away back together ago lot lots bunch""")
_VERBS = _words("""am is are was were be been being have has had do does did done will would shall should can could
may might must get gets got gotten go goes went gone make makes made take takes took taken come comes came see sees
saw seen know knows knew known think thinks thought want wants love loves likes feel feels felt look looks try tries
say says said tell tells told give gives gave given find finds found buy buys bought read reads play plays join
joins help helps work works run runs ran build builds built drive drives drove driven sell sells keep keeps kept
leave left put puts let lets begin began begun start starts hear hears heard plan plans mean means meant need needs
use uses become becomes became show shows shown bring brings brought hope hopes wish call calls watch sing sang
write writes wrote written eat ate eaten drink drank sleep slept sit sat stand stood meet meets met teach teaches
taught learn learns learnt study studies move moves spend spends spent pay paid send sent lose lost win won grow
grew grown happen happens seem seems stay stays enjoy enjoys miss misses share shares visit visits collect collects
catch caught adopt adopts celebrate suggest check turn care agree believe remember forget forgot understand
understood wait open close finish finishes guess bet hang ride rides rode""")
_ADJ = _words("""good great nice awesome amazing wonderful fantastic incredible beautiful gorgeous lovely cute cool
fun funny happy sad glad proud excited exciting tired busy huge big bigger biggest small smaller little tiny large
larger new newer old older young younger best better worst worse favorite favourite special perfect bad hard easy
certain real true whole full free fine ready able own other another same different many much more most few less
least several some any every each all both either neither such only first last next final entire kind sweet brave
strong super crazy interesting boring inspiring relaxing empowering encouraging fascinating overwhelming refreshing
stunning touching rewarding challenging heartwarming uplifting calming soothing important lucky grateful thankful
peaceful powerful meaningful thoughtful helpful awful terrible scary nervous worried hopeful okay alright right
wrong dear main delicious tasty long short high low early late cold hot warm sure magical red blue green yellow
orange purple pink black white brown gray grey golden silver""")
_NUMBERS = _words("""one two three four five six seven eight nine ten eleven twelve twenty thirty fifty hundred
thousand dozen second third fourth fifth sixth seventh eighth ninth tenth""")
_STOP = _FUNCTION | _VERBS | _ADJ | _NUMBERS
_Q = "'\u2019"  # apostrophes: ASCII and right single quotation mark
_CONTRACTION = re.compile(rf"[{_Q}](?:m|re|ve|ll|d|t|s)$|n[{_Q}]t$", re.I)
_WEAK = _words("""thing stuff lot bit kind sort type part piece one ones something anything everything nothing
someone anyone everyone nobody somebody anybody everybody while couple bunch end way""")
# generic nouns: never an entity alone, but fine as the head of a compound ("game night", "family photo")
_FILLER = _WEAK | _words("""time day week month year hour minute second moment night morning evening afternoon
weekend people person guy folk place idea point fact case matter reason question answer deal chance sense mind life
world plan photo picture image pic shot fun hope name""")
_ING_NOUNS = _words("""morning evening thing something anything everything nothing spring king ring string ceiling
sibling pudding wing darling sterling viking duckling wedding""")
_VERB_ING = _words("""thinking going getting doing having being making taking coming saying telling trying looking
feeling hoping wondering asking planning waiting learning wanting loving liking starting finishing keeping leaving
putting letting using seeing knowing giving finding buying helping talking moving living sitting standing staying
watching showing bringing spending paying sending following missing happening becoming working playing heading
checking sharing caring dealing picking sticking meaning guessing struggling enjoying sleeping lying smiling holding
wearing eating laughing posing hugging carrying""")
_ACTIVITY = _words("""painting camping hiking running swimming journaling birdwatching volunteering cooking baking
dancing singing knitting gardening fishing surfing skiing snowboarding cycling biking jogging climbing kayaking
canoeing sailing traveling travelling skating skateboarding drawing sketching writing crocheting sewing quilting
meditating riding boxing bowling golfing shopping gaming coding programming babysitting mentoring woodworking
crafting scrapbooking rowing sculpting wrestling skydiving diving snorkeling hunting bouldering backpacking
stargazing parenting weightlifting photography pottery yoga meditation""")
_KIN = _words("""mom mum mother dad father parent sister brother sibling son daughter kid child baby husband wife
partner spouse boyfriend girlfriend fiance fiancee friend bestie buddy cousin aunt uncle niece nephew grandma
grandpa grandmother grandfather grandparent grandson granddaughter neighbor neighbour mentor therapist doctor nurse
teacher coach boss colleague coworker roommate teammate classmate counselor mr mrs ms dr 妈妈 爸爸 母亲 父亲 女儿
儿子 孩子 朋友 老公 老婆 丈夫 妻子 哥哥 姐姐 弟弟 妹妹 奶奶 爷爷 外婆 外公 同事 老师 小朋友 男朋友 女朋友""")
_PLACE = _words("""beach park school library hospital center centre cafe café restaurant garage backyard yard museum
city town village lake river mountain coast shelter church temple office gym house home apartment store shop mall
airport station hotel studio farm forest island bar pub theater theatre stadium hall campus university college
kitchen garden street road trail country downtown neighborhood neighbourhood wetland zoo aquarium bakery market bank
lake mount mt""")
_TOPIC = _words("""health right anxiety depression identity religion politics equality justice climate education
career faith history science art acceptance diversity wellbeing wellness""")
_NO_SINGULAR = re.compile(r"(?:ss|us|is|ics|ous|[^e]as|news|series|species|clothes|jeans|pants|kudos|chaos)$")
_IRREGULAR = dict(p.split(":", 1) for p in _words("""children:child men:man women:woman feet:foot teeth:tooth mice:mouse
geese:goose knives:knife wives:wife lives:life leaves:leaf shelves:shelf halves:half wolves:wolf"""))
_IES_S = _words("movies cookies pies ties lies brownies selfies zombies rookies smoothies calories hippies")
_OES_S = re.compile(r"\w*shoes|(?:tip)?toes|canoes|oboes|hoes|floes")
_LY_NOUNS = _words("family july italy belly jelly bully lily ally rally fly butterfly holly anomaly assembly")
_ED_NOUNS = _words("bed seed weed need shed sled reed feed deed speed breed greed creed hundred sacred")
_NATIONALITY = re.compile(r"(?:an|ese|ish)$|^(?:french|thai|greek|dutch|swiss)$", re.I)

_PRONOUNS = _words("me you him her it us them myself yourself himself herself ourselves themselves")
_DETS = _words("a an the my your his her our their its this that these those of some any every each no")
_BE = _words("am is are was were be been being i'm you're we're they're he's she's it's")
_BE = _BE | {w.replace("'", "\u2019") for w in _BE}
_ADVERBS = _words("so really just still also even always never now all finally already")
_ADJ_SUFFIX = re.compile(r"(?:al|ful|ous|ive|ic|less|able|ible|ish)$")
_NAME_PART = _ADJ | _words("north south east west upper lower saint st fort mount")
_PERSON_CUE = _KIN | _words("hey hi hello thanks congrats dear named called")
_PLACE_CUE = _words("in to from near at visiting visit visited around across")

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(rf"[A-Za-z0-9]+(?:[-{_Q}][A-Za-z0-9]+)*|[^\sA-Za-z0-9]")
_MAX_WORD = 40  # longer "words" (hashes, URLs, junk) are never names
_SENT_END = frozenset(".!?;:[]()\"\u201c\u201d\u3002\uff01\uff1f\uff1b\uff1a")
_PUNCT = "\"'`.,;:!?()[]{}<>*_/\\|~#-\u2018\u2019\u201c\u201d\u00ab\u00bb\u2026\u2013\u2014\u3001\uff0c\u3002"
_POSS_END = re.compile(rf"[{_Q}]s$", re.I)
_CAPTION = re.compile(
    r"\[\s*(?:shares?|shared|sends?|sent|posts?|posted)\b[^\]:]*:\s*"
    r"(?:(?:a|an|the)\s+)?(?:(?:photo|picture|image|pic|screenshot|selfie|snapshot)s?\s+(?:of|showing|with)\s+)?"
    r"([^\]]*)\]", re.I)

_MON = (r"(?:(?i:january|february|april|june|july|august|september|october|november|december)|May|March"
        r"|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?(?=\s+\d))")
_DAY = r"(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_REL = r"(?i:last|next|this|past|coming|previous)"
_ORD = r"\d{1,2}(?:st|nd|rd|th)?"
_NUMW = r"(?i:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several|\d+)"
_DATE = re.compile("|".join([
    rf"\b(?:{_REL}\s+|(?i:early|late|mid)[\s-]+)?(?:{_ORD}\s+(?i:of\s+)?)?{_MON}(?:\s+{_ORD}\b)?(?:,?\s+\d{{4}})?\b",
    rf"\b(?:{_REL}\s+)?{_DAY}(?:\s+(?i:morning|afternoon|evening|night))?\b",
    rf"\b{_REL}\s+(?i:week|weekend|month|year|summer|winter|spring|fall|autumn|night|semester|season)\b",
    rf"\b{_NUMW}\s+(?i:day|week|month|year)s?\s+(?i:ago)\b",
    r"\b(?i:yesterday|today|tonight|tomorrow)\b",
    r"\b(?:19|20)\d{2}\b",
    rf"(?i:\b(?:christmas(?:\s+eve)?|thanksgiving|easter|halloween|hanukkah|diwali|passover|ramadan|"
    rf"(?:lunar\s+|chinese\s+)?new\s+year(?:[{_Q}]s(?:\s+(?:eve|day))?)?|valentine[{_Q}]s\s+day|fourth\s+of\s+july|"
    rf"independence\s+day|memorial\s+day|labou?r\s+day|mother[{_Q}]s\s+day|father[{_Q}]s\s+day|spring\s+break)\b)",
]))
_DATE_WORDS = _words("summer winter spring fall autumn birthday anniversary")

_ZH_KEEP = {"nr": "person", "nrt": "person", "nrfg": "person", "ns": "place", "nt": "thing", "nz": "thing",
            "n": "thing", "vn": "activity", "t": "date"}
_ZH_STOP = _words("""时候 时间 小时 东西 事情 早上 晚上 下午 上午 中午 每天 最近 现在 以后 以前 之前 之后 当时 后来
一下 感觉 样子 地方 方面 情况 问题 一切 大家 自己 人们 全家 有点 一点 这样 那样 这个 那个 时期 目前 刚才 平时 过去
将来 一天""")

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


def _singular(word: str) -> str:
    if word in _IRREGULAR or len(word) <= 3 or not word.endswith("s") or _NO_SINGULAR.search(word):
        return _IRREGULAR.get(word, word)
    if word.endswith("ies"):
        return word[:-1] if word in _IES_S else word[:-3] + "y"
    if word.endswith("oes"):
        return word[:-1] if _OES_S.fullmatch(word) else word[:-2]
    if re.search(r"(?:ch|sh|ss|x|zz)es$", word):
        return word[:-2]
    return word[:-1]


def _normalise(text: str, *, proper: bool) -> str:
    s = " ".join(text.split()).strip(_PUNCT + " ")
    s = _POSS_END.sub("", s).strip(_PUNCT + " ").lower()
    if not proper and s and not _CJK.search(s):
        head, _, last = s.rpartition(" ")
        s = f"{head} {_singular(last)}".strip()
    return s


def normalise_name(text: str) -> str:
    """Normalised entity key: lowercase, possessive 's (ASCII or curly apostrophe) and surrounding punctuation
    stripped, inner whitespace collapsed; the last word is singularised unless it is capitalised (a proper name).
    Chinese is kept as is.

    >>> normalise_name("Caroline's"), normalise_name(" pottery  classes! "), normalise_name("Paris")
    ('caroline', 'pottery class', 'paris')
    """
    words = text.split()
    last = words[-1].strip(_PUNCT) if words else ""
    return _normalise(text, proper=last[:1].isupper())


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
        poss = bool(_POSS_END.search(low)) and base not in _STOP and base not in _FILLER
        k = bisect.bisect_right(starts, m.start()) - 1
        date = k >= 0 and m.start() < date_spans[k][1]
        toks.append(_Tok(s, m.start(), m.end(), True, base if poss else low, s[0].isupper(), poss, sent_start, date))
        sent_start = False
    return toks


def _content_ok(t: _Tok) -> bool:
    """Whether a word may sit in a noun phrase (not a function word, verb, adverb, adjective or number)."""
    w = t.low
    if t.date or not 2 <= len(w) <= _MAX_WORD or w in _STOP or w in _WEAK or w in _VERB_ING or w[0].isdigit():
        return False
    if _CONTRACTION.search(w) or (w.endswith("ly") and w not in _LY_NOUNS):
        return False
    return not (w.endswith("ed") and len(w) >= 4 and w not in _ED_NOUNS)


def _is_gerund(w: str) -> bool:
    return w.endswith("ing") and len(w) >= 5 and w not in _ING_NOUNS


def _kind_common(name: str) -> str:
    head = name.rsplit(" ", 1)[-1]
    if head in _KIN:
        return "person"
    if head in _PLACE:
        return "place"
    if head in _DATE_WORDS and " " not in name:
        return "date"
    if head in _ACTIVITY or (_is_gerund(head) and " " not in name):
        return "activity"
    if head in _TOPIC or re.search(r"(?:ism|ology|ness)$", head):
        return "topic"
    return "thing"


def _kind_proper(words: list[_Tok], prev: _Tok | None, nxt: _Tok | None) -> str:
    ends = {words[0].low, words[-1].low}
    if ends & _KIN or (prev is not None and prev.low in _PERSON_CUE) or words[-1].poss:
        return "person"
    if ends & _PLACE or (prev is not None and prev.low in _PLACE_CUE) or words[0].low in _NAME_PART:
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
        if t.low in _STOP:  # "New York", "Main Street"
            return t.low in _NAME_PART and nxt is not None and nxt.cap and not nxt.date and nxt.low not in _STOP
        if not t.sent_start:
            return True
        if t.low in _FILLER or t.low in _ACTIVITY or t.low in _KIN or t.low in _PLACE or _is_gerund(t.low):
            return t.low in self.mid_caps
        return t.poss or t.low in self.mid_caps or (nxt is not None and nxt.word and nxt.cap and not nxt.date)

    def emit(self, words: list[_Tok], kind: str | None, is_proper: bool) -> None:
        name = _normalise(" ".join(w.low for w in words), proper=is_proper)
        head = name.rsplit(" ", 1)[-1]
        weak = head in _WEAK or words[-1].low in _STOP or (len(words) == 1 and head in _FILLER)
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
                    self.emit(toks[i:j], _kind_proper(toks[i:j], prev, nxt), True)
                    i = j
                    continue
            j = i + 1 if self.proper(i) or _content_ok(t) else i
            while j < n and not toks[j - 1].poss and not self.proper(j) and _content_ok(toks[j]):
                j += 1
            if j == i:
                i += 1
                continue
            self.phrase(toks[i:j], prev, self.at(j), self.verb_before(i))
            i = j

    def verb_before(self, i: int) -> _Tok | None:
        """The word before token i, skipping adverbs ("is finally blooming" -> "is")."""
        while i > 0 and self.toks[i - 1].word and (self.toks[i - 1].low in _ADVERBS or (
                self.toks[i - 1].low.endswith("ly") and self.toks[i - 1].low not in _LY_NOUNS)):
            i -= 1
        return self.at(i - 1)

    def phrase(self, words: list[_Tok], prev: _Tok | None, nxt: _Tok | None, verb: _Tok | None) -> None:
        while len(words) > 1 and words[0].low in _FILLER:  # "the afternoon knitting" -> "knitting"
            prev, words = words[0], words[1:]
        first = words[0]
        after_be = verb is not None and verb.low in _BE
        if len(words) == 1 and after_be and _ADJ_SUFFIX.search(first.low):
            return  # predicate adjective: "was absolutely magical"
        if _is_gerund(first.low) and not first.cap:
            nominal = first.sent_start or (prev is not None and prev.word and (
                prev.low in _DETS or prev.poss or prev.low in _ADJ or prev.low in _NUMBERS
                or bool(re.fullmatch(r"\d+(?:st|nd|rd|th)?", prev.low))))
            has_object = len(words) == 1 and nxt is not None and nxt.word and (
                nxt.low in _DETS or nxt.low in _PRONOUNS or (nxt.cap and not nxt.date and nxt.low not in _STOP))
            if not nominal:
                # verbal use ("been painting", "study counseling"): an activity when it names one or has no
                # object and no auxiliary; whatever follows it in the run is its object, a phrase of its own
                if first.low in _ACTIVITY or (len(words) == 1 and not has_object and not after_be):
                    self.emit([first], "activity", False)
                words = words[1:]
            elif has_object and first.low not in _ACTIVITY:
                words = []
        if words:
            self.emit(words[-4:], None, False)


def _chinese(text: str, out: list[tuple[int, Entity]]) -> None:
    pos, before = 0, ""
    for word, flag in _jieba().cut(text):
        start = text.find(word, pos)
        if start < 0:
            continue
        pos, w, prefix = start + len(word), word.strip(), before
        before = w
        if len(w) == 1 and flag == "nr" and prefix in ("小", "老", "阿"):  # 小李, 老王: jieba splits them
            w, start = prefix + w, start - 1
        if len(w) < 2 or not _CJK.search(w) or w in _ZH_STOP or flag not in _ZH_KEEP:
            continue
        out.append((start, Entity(w, "person" if w in _KIN else _ZH_KEEP[flag], w)))


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
            _chinese(piece, found)
            piece = _CJK.sub("|", piece)  # Latin words in Chinese keep their offsets; CJK runs become boundaries
        _English(piece, found).run()
        for _, ent in sorted(found, key=lambda p: p[0]):
            if ent.name not in seen and len(ent.name) >= 2:
                seen.add(ent.name)
                result.append(ent)
                if len(result) >= limit:
                    return result
    return result
