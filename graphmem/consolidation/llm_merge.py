"""The one LLM call per cluster: the model writes the text that says what all its members say.

Structured output as reflection does it: a pydantic model whose field description is the instruction (shown to
the model and turned into a grammar by llama.cpp), the client's tolerant parse and one repair retry. A text is
only used when it keeps the key details of the kept member (``dedupe.same_details``: a merge may not drop or
invent a number, a name, a negation or a time word); otherwise the answer counts as bad and the caller keeps the
best-supported member instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from graphmem.consolidation.cluster import Cluster
from graphmem.errors import LLMError, LLMOutputError
from graphmem.llm import LLMClient
from graphmem.models import MAX_CONTENT_CHARS
from graphmem.service.dedupe import same_details

MEMBER_CHARS = 400
"""Characters of each member shown to the model."""


class MergedText(BaseModel):
    """The model's merge of one cluster."""

    model_config = ConfigDict(extra="ignore")

    content: str = Field(min_length=3, max_length=1000, description=(
        "One self-contained statement that says what every numbered memory says: keep every name, number, date and "
        "negation they give, add nothing they do not say, use names instead of pronouns, at most two sentences."))


SYSTEM = """You are the memory of an AI assistant. Several stored memories say the same thing in different \
words; you write the one memory that replaces them. You answer with one JSON object and nothing else.

Fields:
- content: {content}"""


def render_prompt(cluster: Cluster) -> tuple[str, str]:
    """(system, user) messages for one cluster."""
    lines = [f"{i}. {' '.join(c.memory.content.split())[:MEMBER_CHARS]}" for i, c in enumerate(cluster.members, 1)]
    user = (f"Memories ({cluster.kind.value}) that say the same thing:\n" + "\n".join(lines)
            + "\n\nWrite the one memory that replaces them. Answer with the JSON object.")
    return SYSTEM.format(content=MergedText.model_fields["content"].description), user


def check_merged(kept: str) -> Callable[[MergedText, bool], MergedText]:
    """The check after the schema: the text must keep the kept member's key details and be a storable memory
    (``LLMOutputError`` explains what is wrong; the client shows it to the model in its repair request)."""

    def check(answer: MergedText, last_try: bool) -> MergedText:
        text = " ".join(answer.content.split())
        if not text or len(text) > MAX_CONTENT_CHARS:
            raise LLMOutputError("content is blank or too long")
        if not same_details(kept, text):
            raise LLMOutputError(f"content must keep exactly the names, numbers, dates and negations of: {kept!r}")
        return answer.model_copy(update={"content": text})

    return check


@dataclass(frozen=True)
class Merge:
    """What the call gave: the text, or why there is none (``error``), and the calls it took."""

    text: str | None
    calls: int
    error: str | None = None
    unavailable: bool = False
    """The LLM could not be reached (or refused): later clusters of the run need not ask it."""


async def merge_text(llm: LLMClient, cluster: Cluster, *, timeout: float, max_tokens: int = 300) -> Merge:
    """Ask ``llm`` for the merged text of ``cluster``; never raises an LLM error (it is in the result)."""
    system, user = render_prompt(cluster)
    before = llm.usage.calls
    try:
        answer = await llm.complete_json(system, user, MergedText, timeout=timeout, max_tokens=max_tokens,
                                         check=check_merged(cluster.kept.memory.content))
    except LLMOutputError as exc:
        return Merge(None, llm.usage.calls - before, f"bad LLM answer: {exc}"[:300])
    except LLMError as exc:
        return Merge(None, llm.usage.calls - before, f"LLM unavailable: {exc}"[:300], unavailable=True)
    return Merge(answer.content, llm.usage.calls - before)


__all__ = ["Merge", "MergedText", "check_merged", "merge_text", "render_prompt"]
