"""Word lists for :mod:`graphmem.graph.entities` (English lexicons, date fragments, Chinese stopwords).

Plain data plus the small helper that spells English verb forms; no logic of the extractor lives here.
Verbs come in two sets:

* ``VERBS``: every form (base, -s, -ed, irregular past) of common verbs that are rarely nouns ("arrive", "settle",
  "seem"); such a word always ends a noun phrase. ``VERB_ING`` adds their -ing forms, except gerunds that are
  usually nouns or hobbies ("building", "reading", "painting").
* ``NOUN_VERBS_BASE`` / ``NOUN_VERBS_S``: base and -s forms of verbs that are just as often nouns ("sound",
  "cook", "attack", "delay"); the extractor reads them as verbs only in a verb context (after a subject pronoun,
  a modal or "to", after a plural noun, or an -s form after a singular noun followed by an object or complement:
  "the class sounds fun", not "her panic attacks").
"""

from __future__ import annotations

__all__ = [
    "ACTIVITY", "ADJ", "ADJ_SUFFIX_RE", "ADVERBS", "BE", "DATE_RE", "DATE_WORDS", "DAY_RE", "DETS", "ED_NOUNS",
    "FILLER", "FUNCTION", "HOLIDAY_RE", "IES_S", "ING_NOUNS", "IRREGULAR", "KIN", "LY_NOUNS", "MODALS", "MONTH_RE",
    "MOTION", "NAME_PART", "NATIONALITY_RE", "NOUN_VERBS_BASE", "NOUN_VERBS_S", "NO_SINGULAR_RE", "NUMBERS",
    "NUMBER_WORDS_RE", "OES_S_RE", "PERSON_CUE", "PLACE", "PLACE_CUE", "PLURAL_MODIFIERS", "PLURAL_WORDS",
    "PRONOUNS", "RELATIVE_RE", "SIGNAL", "STOP", "SUBJECT_PL", "SUBJECT_SG", "TOPIC", "TO_PERSON", "VERBS",
    "VERB_ING", "WEAK",
    "ZH_DATE_RE", "ZH_KEEP", "ZH_NOT_DATE", "ZH_STOP", "verb_forms",
]


def _words(s: str) -> frozenset[str]:
    return frozenset(s.split())


_Q = "'\u2019"

FUNCTION = _words("""a an the this that these those there here it its i me my mine myself we us our ours ourselves
you your yours yourself yourselves he him his himself she her hers herself they them their theirs themselves who
whom whose which what whatever when where why how whether if then than so as because since while though although
unless until till and or but nor not no yes yeah yep yup nope nah ok okay oh ooh ah aw aww wow whoa hey hi hello
hiya bye goodbye thanks thank congrats congratulations please sorry lol haha hahaha omg btw ugh hmm umm yay oops meh
yikes phew gosh well like just really very quite pretty too also even still already yet ever never always often
sometimes usually maybe perhaps probably definitely actually basically literally totally honestly seriously anyway
anyways again once twice soon now later today tonight tomorrow yesterday instead else almost enough anymore online
offline abroad overseas upstairs downstairs outdoors indoors nearby of in on at to for from with without by about
above below over under into onto upon out up down off through across around near behind beside between among against
along toward towards during before after inside outside within via per past unlike away back together ago lot
lots bunch""")

# the verbs the extractor has always stopped at, some of them also nouns ("work", "plan", "visit")
_OLD_VERBS = _words("""am is are was were be been being have has had do does did done will would shall should can
could may might must get gets got gotten go goes went gone make makes made take takes took taken come comes came see
sees saw seen know knows knew known think thinks thought want wants love loves likes feel feels felt look looks try
tries say says said tell tells told give gives gave given find finds found buy buys bought read reads play plays join
joins help helps work works run runs ran build builds built drive drives drove driven sell sells keep keeps kept
leave left put puts let lets begin began begun start starts hear hears heard plan plans mean means meant need needs
use uses become becomes became show shows shown bring brings brought hope hopes wish call calls watch sing sang
write writes wrote written eat ate eaten drink drank sleep slept sit sat stand stood meet meets met teach teaches
taught learn learns learnt study studies move moves spend spends spent pay paid send sent lose lost win won grow
grew grown happen happens seem seems stay stays enjoy enjoys miss misses share shares visit visits collect collects
catch caught adopt adopts celebrate suggest check turn care agree believe remember forget forgot understand
understood wait open close finish finishes guess bet hang ride rides rode""")

# common verbs that are rarely nouns: all their regular forms are generated (verb_forms)
_VERB_BASES = _words("""accept achieve add admire admit adopt advise afford agree allow announce annoy apologize
apologise appear appreciate approve argue arrange arrive ask assume attend avoid become begin behave believe belong
borrow bring build buy celebrate check choose collect come complain complete consider contain continue convince
create decide deliver deny depend describe deserve destroy develop disagree disappear discover discuss do eat
embrace encourage enjoy enter escape expect explain explore fail feel find finish forget forgive gain get give go
grab greet grow happen hate have hear help hesitate hide hire hope ignore imagine improve include inspire intend
introduce invite involve join keep know learn leave lend let like listen make manage marry mean meet mention miss
motivate need notice obtain occur organize organise participate pay perform persuade plan prefer prepare pretend
prevent proceed protect prove provide put quit read realize realise receive recognize recognise recommend recover
reduce refuse regret reject remain remember remind remove replace represent require resist respond retire reveal
ride rise say see seem sell send settle share show sing sit sleep solve speak spend stand start stay steal suggest
suppose survive suspect take teach tell tend think understand use visit wait want warn watch wear welcome win wish
write arise blow catch chew choose cling creep drink drive freeze hang hurry kneel leap lose run seek shine shrink
spit steal stink swear sweep throw wake weep bother wonder worry relax clean care wait open close""")

_IRREGULAR_PAST = _words("""arose arisen awoke became began begun bent bitten bled blew blown broke broken brought
built bought caught chose chosen clung came crept dealt dug did done drawn drank drunk drove driven ate eaten fallen
fought fled flew flown forbade forgot forgotten forgave forgiven froze frozen got gotten gave given went gone grew
grown hung had heard hidden held kept knelt knew known laid leant leapt learnt lent lost made meant met paid proven
rode ridden rang rung risen ran said seen sought sold sent shook shaken shone shown shrank shrunk sang sung sank sunk
sat slept slid spoke spoken sped spent spun spat sprang sprung stood stole stolen stuck stung stank struck swore
sworn swept swam swum swung took taken taught tore torn told thought threw thrown understood woke woken wore worn
wept won wrote written""")

# verbs that are as often nouns: read as verbs only in a verb context (see the module docstring)
_NOUN_VERB_BASES = _words("""act answer attack bake balance battle bite blame block bounce break brush camp cause
change charge chase chat cheer claim climb coach cook cost count cover crash cross cry cut dance date deal delay
design dig dip dive doubt drag draw dream dress drop dump email exercise experience face fall fear fight file fill
film fish fit fix float flow fly fold force frame guard guide handle harm head hike hit hold host hug hunt hurt
increase interest iron joke judge jump kick kiss knock land laugh lay lead lift light limit link list load lock mark
match measure message mix nap note offer order pack paint pass phone picture place plant point post practice praise
present press price print promise protest pull punch push question race rain rate record rent repair reply report
request rescue rest return review ring risk rock roll row rule rush sail save score search shake shape ship shop
shower sign sink skate ski skip slide slip smell smile smoke snow sort sound spell spin spray spread stamp step stop
store storm stress strike struggle support surf surprise swim swing switch talk taste test text tie tour touch trade
train trap travel treat trick trip trust type update vote walk wash waste water wave wrap yell zoom""")

# -ing forms that stay nouns or hobbies even though their verb is in _VERB_BASES
_ING_KEEP = _words("""building meeting reading writing drawing feeling wedding setting ending opening recording
offering warning clothing greeting driving understanding cleaning""")

# doubled final consonant before -ed / -ing
_DOUBLE = _words("""admit begin bet chat chop clap commit cut dig dip drag drop forget get grab hit hug jog kid
knit let nap occur omit plan prefer put quit regret rob rub run set shop shut sip sit skip slam slip spin spit split
step stop swim tap trap trip win wrap""")


def verb_forms(base: str) -> tuple[str, str, str]:
    """(-s, -ed, -ing) spellings of a regular English verb: ("arrive") -> ("arrives", "arrived", "arriving")."""
    if base in _DOUBLE:
        stem = base + base[-1]
        return base + "s", stem + "ed", stem + "ing"
    if base.endswith("ie"):
        return base + "s", base + "d", base[:-2] + "ying"
    if base.endswith("e"):
        ing = base + "ing" if base.endswith(("ee", "ye", "oe")) else base[:-1] + "ing"
        return base + "s", base + "d", ing
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        return base[:-1] + "ies", base[:-1] + "ied", base + "ing"
    s = base + "es" if base.endswith(("s", "sh", "ch", "x", "z", "o")) else base + "s"
    return s, base + "ed", base + "ing"


_FORMS = {b: verb_forms(b) for b in _VERB_BASES}
# generated forms that are also common nouns, left out of VERBS ("autumn leaves", "seed")
_NOUN_FORMS = _words("leaves hides seed")
_REGULAR = frozenset(f for s, ed, _ in _FORMS.values() for f in (s, ed))
VERBS = (_OLD_VERBS | _VERB_BASES | _IRREGULAR_PAST | _REGULAR) - _NOUN_FORMS
NOUN_VERBS_BASE = _NOUN_VERB_BASES
NOUN_VERBS_S = frozenset(verb_forms(b)[0] for b in _NOUN_VERB_BASES)

ADJ = _words("""good great nice awesome amazing wonderful fantastic incredible beautiful gorgeous lovely cute cool
fun funny happy sad glad proud excited exciting tired busy huge big bigger biggest small smaller little tiny large
larger new newer old older young younger best better worst worse favorite favourite special perfect bad hard easy
certain real true whole full free fine ready able own other another same different many much more most few less
least several some any every each all both either neither such only first last next final entire kind sweet brave
strong super crazy interesting boring inspiring relaxing empowering encouraging fascinating overwhelming refreshing
stunning touching rewarding challenging heartwarming uplifting calming soothing important lucky grateful thankful
peaceful powerful meaningful thoughtful helpful awful terrible scary nervous worried hopeful okay alright right
wrong dear main delicious tasty long short high low early late cold hot warm sure magical red blue green yellow
orange purple pink black white brown gray grey golden silver""")
NUMBERS = _words("""one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty
hundred thousand million dozen second third fourth fifth sixth seventh eighth ninth tenth""")
STOP = FUNCTION | VERBS | ADJ | NUMBERS
WEAK = _words("""thing stuff lot bit kind sort type part piece one ones something anything everything nothing
someone anyone everyone nobody somebody anybody everybody while couple bunch end way""")
# generic nouns: never an entity alone, but fine as the head of a compound ("game night", "family photo")
FILLER = WEAK | _words("""time day week month year hour minute second moment night morning evening afternoon
weekend people person guy folk place idea point fact case matter reason question answer deal chance sense mind life
world plan photo picture image pic shot fun hope name""")
ING_NOUNS = _words("""morning evening thing something anything everything nothing spring king ring string ceiling
sibling pudding wing darling sterling viking duckling wedding""")
ACTIVITY = _words("""painting camping hiking running swimming journaling birdwatching volunteering cooking baking
dancing singing knitting gardening fishing surfing skiing snowboarding cycling biking jogging climbing kayaking
canoeing sailing traveling travelling skating skateboarding drawing sketching writing crocheting sewing quilting
meditating riding boxing bowling golfing shopping gaming coding programming babysitting mentoring woodworking
crafting scrapbooking rowing sculpting wrestling skydiving diving snorkeling hunting bouldering backpacking
stargazing parenting weightlifting photography pottery yoga meditation""")
VERB_ING = _words("""thinking going getting doing having being making taking coming saying telling trying looking
feeling hoping wondering asking planning waiting learning wanting loving liking starting finishing keeping leaving
putting letting using seeing knowing giving finding buying helping talking moving living sitting standing staying
watching showing bringing spending paying sending following missing happening becoming working playing heading
checking sharing caring dealing picking sticking meaning guessing struggling enjoying sleeping lying smiling holding
wearing eating laughing posing hugging carrying""") | (
    frozenset(f[2] for f in _FORMS.values()) - ACTIVITY - ING_NOUNS - _ING_KEEP)
KIN = _words("""mom mum mother dad father parent sister brother sibling son daughter kid child baby husband wife
partner spouse boyfriend girlfriend fiance fiancee friend bestie buddy cousin aunt uncle niece nephew grandma
grandpa grandmother grandfather grandparent grandson granddaughter neighbor neighbour mentor therapist doctor nurse
teacher coach boss colleague coworker roommate teammate classmate counselor mr mrs ms dr 妈妈 爸爸 母亲 父亲 女儿
儿子 孩子 朋友 老公 老婆 丈夫 妻子 哥哥 姐姐 弟弟 妹妹 奶奶 爷爷 外婆 外公 同事 老师 小朋友 男朋友 女朋友""")
PLACE = _words("""beach park school library hospital center centre cafe café restaurant garage backyard yard museum
city town village lake river mountain coast shelter church temple office gym house home apartment store shop mall
airport station hotel studio farm forest island bar pub theater theatre stadium hall campus university college
kitchen garden street road trail country downtown neighborhood neighbourhood wetland zoo aquarium bakery market bank
lake mount mt""")
TOPIC = _words("""health right anxiety depression identity religion politics equality justice climate education
career faith history science art acceptance diversity wellbeing wellness""")
IRREGULAR = dict(p.split(":", 1) for p in _words("""children:child men:man women:woman feet:foot teeth:tooth
mice:mouse geese:goose knives:knife wives:wife lives:life leaves:leaf shelves:shelf halves:half wolves:wolf"""))
PLURAL_WORDS = frozenset(IRREGULAR) | {"people", "police", "cattle"}
NO_SINGULAR_RE = r"(?:ss|us|is|ics|ous|[^e]as|news|series|species|clothes|jeans|pants|kudos|chaos)$"
OES_S_RE = r"\w*shoes|(?:tip)?toes|canoes|oboes|hoes|floes"
NATIONALITY_RE = r"(?:an|ese|ish)$|^(?:french|thai|greek|dutch|swiss)$"
IES_S = _words("movies cookies pies ties lies brownies selfies zombies rookies smoothies calories hippies")
LY_NOUNS = _words("family july italy belly jelly bully lily ally rally fly butterfly holly anomaly assembly")
ED_NOUNS = _words("bed seed weed need shed sled reed feed deed speed breed greed creed hundred sacred")
# plural nouns that do modify a following noun ("sports car", "kids menu"): a verb-looking word after them is not
# taken for a verb
PLURAL_MODIFIERS = _words("""sports arts sales savings goods kids girls boys mens womens ladies parks awards honors
jobs students teachers veterans customs earnings arms""")

PRONOUNS = _words("me you him her it us them myself yourself himself herself ourselves themselves")
SUBJECT_SG = _words("he she it this that who which what everyone someone everybody somebody nobody everything")
SUBJECT_PL = _words("i you we they")
MODALS = _words("""to can could will would shall should may might must do does did don't didn't doesn't won't
can't cannot wouldn't couldn't shouldn't let's gonna wanna gotta""")
MODALS = MODALS | {w.replace("'", "\u2019") for w in MODALS}
# "to" after these is a preposition, not an infinitive: "went to camp"
MOTION = _words("go goes going gone went come comes coming came back headed sent way")
DETS = _words("a an the my your his her our their its this that these those of some any every each no")
BE = _words("am is are was were be been being i'm you're we're they're he's she's it's")
BE = BE | {w.replace("'", "\u2019") for w in BE}
ADVERBS = _words("so really just still also even always never now all finally already")
# words after which an ambiguous -s form reads as a verb: "sounds fun", "looks like", "walks the dog"
SIGNAL = ADJ | ADVERBS | NUMBERS | PRONOUNS | SUBJECT_SG | (DETS - {"of"}) | _words("""like to too very pretty
quite up out off back away anything nothing something""")
ADJ_SUFFIX_RE = r"(?:al|ful|ous|ive|ic|less|able|ible|ish)$"
NAME_PART = ADJ | _words("north south east west upper lower saint st fort mount")
PERSON_CUE = KIN | _words("hey hi hello thanks congrats dear named called")
PLACE_CUE = _words("in to from near at visiting visit visited around across")
# words before "to" that make the name after it a person: "married to Joanna Petrov", "talked to Caroline"
# (not "went to Paris"; not "sent to Berlin", "close to Boston": both ways, so left out)
TO_PERSON = _words("""married engaged talk talks talked talking speak speaks spoke speaking say says said saying
write writes wrote writing written give gives gave giving introduced introduce listen listens listened listening
reply replies replied explain explained lend lent read reading sing sang singing wave waved apologized apologised
texted texting emailed messaged grateful thankful kind nice mean thanks thank""")

MONTH_RE = (r"(?:(?i:january|february|april|june|july|august|september|october|november|december)|May|March"
            r"|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?(?=\s+\d))")
DAY_RE = r"(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
RELATIVE_RE = r"(?i:last|next|this|past|coming|previous)"
NUMBER_WORDS_RE = (r"(?i:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|a\s+couple\s+of|several"
                   r"|\d+)")
HOLIDAY_RE = (rf"(?i:\b(?:christmas(?:\s+eve)?|thanksgiving|easter|halloween|hanukkah|diwali|passover|ramadan|"
              rf"(?:lunar\s+|chinese\s+)?new\s+year(?:[{_Q}]s(?:\s+(?:eve|day))?)?|valentine[{_Q}]s\s+day|"
              rf"fourth\s+of\s+july|independence\s+day|memorial\s+day|labou?r\s+day|mother[{_Q}]s\s+day|"
              rf"father[{_Q}]s\s+day|spring\s+break)\b)")
_ORD = r"\d{1,2}(?:st|nd|rd|th)?"
DATE_RE = "|".join([
    rf"\b(?:{RELATIVE_RE}\s+|(?i:early|late|mid)[\s-]+)?(?:{_ORD}\s+(?i:of\s+)?)?{MONTH_RE}(?:\s+{_ORD}\b)?"
    rf"(?:,?\s+\d{{4}})?\b",
    rf"\b(?:{RELATIVE_RE}\s+)?{DAY_RE}(?:\s+(?i:morning|afternoon|evening|night))?\b",
    rf"\b{RELATIVE_RE}\s+(?i:week|weekend|month|year|summer|winter|spring|fall|autumn|night|semester|season)\b",
    rf"\b{NUMBER_WORDS_RE}\s+(?i:day|week|month|year)s?\s+(?i:ago)\b",
    r"\b(?i:yesterday|today|tonight|tomorrow)\b",
    r"\b(?:19|20)\d{2}\b",
    HOLIDAY_RE,
])
DATE_WORDS = _words("summer winter spring fall autumn birthday anniversary")

ZH_KEEP = {"nr": "person", "nrt": "person", "nrfg": "person", "ns": "place", "nt": "thing", "nz": "thing",
           "n": "thing", "vn": "activity", "t": "date"}  # jieba part-of-speech flags kept, and their kinds
ZH_STOP = _words("""时候 时间 小时 东西 事情 早上 晚上 下午 上午 中午 每天 最近 现在 以后 以前 之前 之后 当时 后来
一下 感觉 样子 地方 方面 情况 问题 一切 大家 自己 人们 全家 有点 一点 这样 那样 这个 那个 时期 目前 刚才 平时 过去
将来 一天""")
ZH_NOT_DATE = _words("五月天")  # jieba's time words (t) that name no time: 五月天 is the band Mayday

# Chinese date expressions, read on graphmem.zhtext.fold's fold (full-width digits ASCII, 週 as 周): one entity each
_ZH_YEAR = "(?:[0-9]{4}|[\u3007零一二三四五六七八九]{4})年"  # 2023年, 二零二三年 (or U+3007 for 零)
_ZH_YEAR_WORD = "前年|去年|今年|明年"
_ZH_MONTH = r"(?<![0-9])(?:[0-9]{1,2}|十[一二]?|[一二三四五六七八九])月(?!(?<=五月)天(?![气天]))份?"  # not 五月天
_ZH_DAY = r"(?:[0-9]{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])[日号]"
_ZH_REL = "上上个?|上个?|这个?|本|下个?"
_ZH_WEEK = "(?:周|星期|礼拜)"
_ZH_WEEKDAY = "(?:[日天末]|[一二三四五六](?![天次个回遍]))"  # 每周三 (Wednesdays), not 每周三天 (three days a week)
ZH_DATE_RE = "|".join([
    rf"(?:(?:{_ZH_YEAR}|{_ZH_YEAR_WORD})的?)?{_ZH_MONTH}(?:{_ZH_DAY})?",  # 2024年3月5日, 去年(的)五月, 3月, 5月8号
    rf"(?<![0-9\u3007零一二三四五六七八九]){_ZH_YEAR}|{_ZH_YEAR_WORD}",
    rf"(?<![0-9一二两三四五六七八九十几])(?:{_ZH_REL})?{_ZH_WEEK}{_ZH_WEEKDAY}|(?:{_ZH_REL}){_ZH_WEEK}",
    rf"(?:{_ZH_REL})月",  # 上个月
    r"(?<![0-9])(?:[0-9]{1,3}|[零一二两三四五六七八九十几]{1,3})(?:天|周|个星期|星期|个礼拜|礼拜|个月|年)[之以]?[前后]",
    r"大前天|(?<![以之])前天|昨[天日晚]|今[天日晚早]|明[天日]|(?<![以之])后天",
])
