"""Prompt sizing (pure): a rough token estimate and cutting the user message to fit the context window."""

from __future__ import annotations

import math

from graphmem.errors import ConfigError

CHARS_PER_TOKEN = 3.2
"""Conservative for English with BPE tokenizers (Qwen2.5 averages ~3.8 on chat text): overestimates tokens."""
CHAT_OVERHEAD_TOKENS = 32
"""Role markers and template tokens of a system + user exchange."""
CUT_MARK = "\n[... cut to fit the model's context ...]\n"


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def fit_to_context(system: str, user: str, *, context_tokens: int, reserve_tokens: int) -> str:
    """``user``, with its middle cut out when system + user + the reserved answer exceed the context.

    The head (the task, the instructions) and the tail (the latest turns, the question) are kept.
    Raises ConfigError when even the system prompt and the reserve do not fit.
    """
    room = context_tokens - reserve_tokens - CHAT_OVERHEAD_TOKENS - estimate_tokens(system)
    if room <= estimate_tokens(CUT_MARK) + 16:
        raise ConfigError(f"context of {context_tokens} tokens leaves no room for the input "
                         f"(system prompt ~{estimate_tokens(system)}, answer {reserve_tokens})")
    if estimate_tokens(user) <= room:
        return user
    keep = int((room - estimate_tokens(CUT_MARK)) * CHARS_PER_TOKEN)
    head = keep * 2 // 3
    return user[:head] + CUT_MARK + user[len(user) - (keep - head):]
