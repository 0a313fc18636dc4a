"""Query echoes (pure): a memory that restates the query word for word is a retrieval key, not evidence.

Query-targeted poisoning makes its record easy to find for the question it targets by writing that question into it:
PoisonedRAG's black-box attack (arXiv 2402.07867) prefixes the poison with the target question itself; a MINJA
record (arXiv 2503.03704) is the attacker's query, which holds the victim's, stored with the bridging steps it slips
in. A memory of what happened rarely holds a later question verbatim: on the LoCoMo dev conversations, whose
questions were written by people reading the turns, no memory of the 50,285 in the 760 questions' candidate pools
restates its question under the default rule, while 3 declarative restatements ("Gina has developed a video
presentation to teach how to style her fashion pieces." for "When did Gina develop a video presentation to teach how
to style her fashion pieces?") reach 70% of its words.

The rule: the longest run of consecutive words the memory shares with the query (case and apostrophes aside; a
Chinese character counts as a word) covers at least ``share`` of the query's words and at least ``min_words``.
A query shorter than ``min_words`` words is never echoed. What it does not catch: a poison that paraphrases the
question (it is then found only as well as the paraphrase is similar) and a FAQ-style note that quotes the question
it answers (it is demoted too: the defence is opt-in, ``SearchOptions.consensus``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from graphmem.zhtext import CJK

__all__ = ["Echo", "echo", "words"]

_WORD = re.compile(rf"{CJK.pattern}|[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)


def words(text: str | None) -> list[str]:
    """Lowercase words (a CJK character is one), curly apostrophes made straight."""
    return [w.casefold().replace("\u2019", "'") for w in _WORD.findall(text or "")]


@dataclass(frozen=True)
class Echo:
    shared: int
    """The longest run of consecutive query words the memory holds."""
    query_words: int

    @property
    def reason(self) -> str:
        return (f"restates the query word for word ({self.shared} of its {self.query_words} words in a row): "
                "a key planted to be found by this question, not evidence")


def _longest_run(query: list[str], content: list[str]) -> int:
    best = 0
    previous = [0] * (len(content) + 1)
    for q in query:
        current = [0] * (len(content) + 1)
        for j, c in enumerate(content):
            if q == c:
                current[j + 1] = previous[j] + 1
                best = max(best, current[j + 1])
        previous = current
    return best


def echo(query: str, content: str | None, *, share: float = 0.8, min_words: int = 4) -> Echo | None:
    """The memory's echo of the query, or None when it does not restate it (see the module docstring)."""
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share}")
    if min_words < 1:
        raise ValueError(f"min_words must be at least 1, got {min_words}")
    asked = words(query)
    need = max(min_words, math.ceil(share * len(asked)))
    if len(asked) < need:
        return None
    said = words(content)
    if len(set(asked) & set(said)) < min(need, len(set(asked))):  # cheap: most memories share few words
        return None
    run = _longest_run(asked, said)
    return Echo(run, len(asked)) if run >= need else None
