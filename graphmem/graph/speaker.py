"""Who says a memory (pure): a conversation turn is written "Speaker: text" ("Caroline: I went ...", a Chinese
turn with a full-width colon). The ranking's speaker term (``retrieval.formula``) and the answer kinds a memory
holds (``graph.answer_kinds``) read it; ``retrieval/search`` computes the same in Cypher."""

from __future__ import annotations

__all__ = ["SPEAKER_MARKS", "SPEAKER_MAX_CHARS", "speaker_of", "split_speaker"]

SPEAKER_MARKS = (":", "\uff1a")
"""What ends a speaker's name at the start of a memory: an ASCII and a full-width colon (Chinese)."""
SPEAKER_MAX_CHARS = 40
"""A longer opening before the first colon is a sentence, not a name."""


def speaker_of(content: str | None) -> str | None:
    """Who says the memory, lowercase: the opening before its first colon, ASCII or full-width ("Caroline: I went
    ..." -> "caroline"; a Chinese turn opens with its speaker's name and U+FF1A), when that opening is 1 to
    ``SPEAKER_MAX_CHARS`` characters (blanks aside); else None. ``retrieval/search`` computes the same in Cypher."""
    return split_speaker(content)[0]


def split_speaker(content: str | None) -> tuple[str | None, str]:
    """``(speaker_of(content), what follows the speaker's colon)``; ``(None, content)`` when no speaker opens it."""
    text = (content or "").lstrip()
    opening = text
    for mark in SPEAKER_MARKS:
        opening = opening.split(mark, 1)[0]
    name = opening.strip()
    if len(opening) == len(text) or not name or len(opening) > SPEAKER_MAX_CHARS:
        return None, content or ""
    return name.lower(), text[len(opening) + 1:]
