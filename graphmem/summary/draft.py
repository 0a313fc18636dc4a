"""A task's summary as a memory draft (pure), and the extractive summary written without an LLM.

A summary is an EPISODIC memory with ``summary_of`` set: the write path labels it ``:Summary``, links it
``FROM_TASK`` and supersedes the task's earlier summary in the same transaction (``cypher/summary/attach``), and it
derives from the turns it covers. Its id is stable in (task, content): writing the same summary again writes
nothing, a different one replaces it. It is dated when its task started, so a question about that day finds it.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from graphmem.models import MemoryDraft, MemoryKind, Task, Turn, provenance

SUMMARY_TAG = "summary"
SUMMARY_SOURCE = "summary"
"""``source`` of a summary is ``summary:<how>`` (``summary:reflection``, ``summary:extractive``, ``summary:locomo``)."""
MAX_SUMMARY_CHARS = 1500
EXTRACT_TURNS = 3
"""Turns an extractive summary quotes (the most central ones, in their order)."""
QUOTE_CHARS = 220
WORD = re.compile(r"[^\W\d_]{3,}", re.UNICODE)
STOP_WORDS = ("the and for are but not you your yours with this that have has had was were will would can could should "
              "about from they them their there then than what when where which who why how all any just also very "
              "really some more most much many into out our ours its been being does did yes yeah okay well sure "
              "thanks thank hey hello great good nice cool")
STOP = frozenset(STOP_WORDS.split(" "))


def summary_id(task_id: str, content: str) -> str:
    """Stable in the task and the (case and space normalised) content."""
    text = " ".join(content.lower().split())
    return uuid.uuid5(uuid.NAMESPACE_URL, f"graphmem:summary:{task_id}:{text}").hex


def summary_draft(task: Task, content: str, *, turn_ids: Sequence[str], how: str,
                  confidence: float = 1.0) -> MemoryDraft | None:
    """The draft of ``task``'s summary, derived from ``turn_ids``; None for a blank text. Over-long text is cut."""
    text = " ".join(content.split())
    if not text:
        return None
    if len(text) > MAX_SUMMARY_CHARS:
        text = text[: MAX_SUMMARY_CHARS - 1].rstrip() + "\u2026"
    return MemoryDraft(
        namespace=task.namespace, kind=MemoryKind.EPISODIC, content=text, id=summary_id(task.id, text),
        confidence=confidence, tags=(SUMMARY_TAG,), source=f"{SUMMARY_SOURCE}:{how}", created_at=task.started_at,
        derived_from=tuple(dict.fromkeys(turn_ids)), summary_of=task.id, **provenance(task))


def _words(text: str) -> list[str]:
    return [w for w in (m.lower() for m in WORD.findall(text)) if w not in STOP]


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "\u2026"


def _date(at: datetime) -> str:
    return f"{at.day} {at.strftime('%B %Y')}"


def central_turns(turns: Sequence[Turn], n: int = EXTRACT_TURNS) -> list[Turn]:
    """The ``n`` turns whose words the rest of the task repeats most (per word, square-root of length), in order."""
    words = [set(_words(t.content)) for t in turns]
    spread = Counter(w for ws in words for w in ws)
    scored = []
    for t, ws in zip(turns, words, strict=True):
        shared = sum(spread[w] - 1 for w in ws)
        if shared > 0:
            scored.append((shared / max(len(ws), 1) ** 0.5, -t.seq, t))
    best = sorted(scored, key=lambda s: (-s[0], -s[1]))[:n]
    return sorted((t for _, _, t in best), key=lambda t: t.seq)


def extractive_summary(task: Task, turns: Sequence[Turn]) -> str | None:
    """A summary with no LLM: the date, the title, who took part, the task's most central turns quoted, and the
    outcome; None for a task with nothing to say."""
    picked = central_turns(turns)
    if not picked and not task.outcome and not task.title:
        return None
    people = list(dict.fromkeys(t.speaker or t.role.value for t in turns))
    head = f"On {_date(task.started_at)}" + (f", {', '.join(people)}" if people else "")
    head += f": {task.title.strip()}." if task.title and task.title.strip() else "."
    quotes = [f"{t.speaker or t.role.value}: {_quote(t.content)}" for t in picked]
    parts = [head, *quotes]
    if task.outcome and task.outcome.strip():
        parts.append(f"Outcome: {_quote(task.outcome)}")
    return " ".join(parts)


__all__ = ["MAX_SUMMARY_CHARS", "SUMMARY_SOURCE", "SUMMARY_TAG", "central_turns", "extractive_summary",
           "summary_draft", "summary_id"]
