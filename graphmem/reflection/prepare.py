"""Preparing a reflection (pure): the task's turns compressed within a token budget, short ids for the
existing memories the model may link to, and the prompt."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel

from graphmem.llm.prompt import estimate_tokens
from graphmem.models import Memory, Role, Task, Turn

MAX_TURN_CHARS = 700
SMALL_TALK = re.compile(
    r"^(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?( so much| a lot)?|thank you|ok(ay)?|sure|"
    r"great|cool|nice|bye|goodbye|see you|you'?re welcome|no problem|sounds good|got it|perfect|awesome|"
    r"have a (nice|good|great) (day|one))[\s!.,:;)]*$", re.IGNORECASE)
"""Whole turns that carry nothing to remember."""
SALIENT = re.compile(
    r"\b(prefer|like|love|hate|want|need|always|never|decid|chose|choose|agreed|moved|live|work|bought|order|"
    r"refund|return|policy|deadline|error|fail|fixed|broke|wrong|outcome|result|because|must|should|allerg)\w*",
    re.IGNORECASE)


@dataclass(frozen=True)
class LogLine:
    seq: int
    role: str
    text: str


@dataclass(frozen=True)
class Compressed:
    lines: tuple[LogLine, ...]
    dropped_small_talk: int
    omitted: int
    """Turns left out for the budget (lowest value first, never the first and the last two)."""


def is_small_talk(text: str) -> bool:
    return bool(SMALL_TALK.match(" ".join(text.split())))


def shorten(text: str, limit: int = MAX_TURN_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = limit * 2 // 3
    return f"{flat[:head]} [...] {flat[len(flat) - (limit - head - 7):]}"


def _value(turn: Turn, index: int, total: int) -> float:
    """How much a turn is worth keeping: decisions, preferences, tool results and outcomes first."""
    score = 1.0
    if turn.role in (Role.TOOL,) or turn.tool_calls:
        score += 2.0
    if turn.role == Role.USER:
        score += 1.0
    score += min(len(SALIENT.findall(turn.content)), 3)
    score += index / max(total, 1)  # later turns hold outcomes
    return score


def compress_turns(turns: Sequence[Turn], budget_tokens: int) -> Compressed:
    """The turns worth showing, in order, within ``budget_tokens``."""
    kept = [t for t in turns if not is_small_talk(t.content)]
    small = len(turns) - len(kept)
    lines = {t.seq: LogLine(t.seq, t.speaker or t.role.value, shorten(t.content)) for t in kept}
    cost = {seq: estimate_tokens(render_line(line)) for seq, line in lines.items()}
    total = sum(cost.values())
    pinned = {kept[0].seq, *(t.seq for t in kept[-2:])} if kept else set()
    order = sorted((t for t in kept if t.seq not in pinned),
                   key=lambda t: _value(t, kept.index(t), len(kept)))
    omitted = 0
    for turn in order:
        if total <= budget_tokens:
            break
        total -= cost.pop(turn.seq)
        del lines[turn.seq]
        omitted += 1
    return Compressed(tuple(lines[s] for s in sorted(lines)), small, omitted)


def render_line(line: LogLine) -> str:
    return f"T{line.seq} [{line.role}]: {line.text}"


def memory_aliases(memories: Sequence[Memory]) -> dict[str, Memory]:
    """M1, M2, ... for the existing memories shown (a small model copies these, not 32-char ids)."""
    return {f"M{i}": m for i, m in enumerate(memories, start=1)}


SYSTEM = """You are the memory of an AI assistant. After a task you read its interaction log and decide what is \
worth remembering for future tasks. You answer with one JSON object and nothing else.

Rules:
- facts: self-contained sentences with names, no pronouns. Lasting knowledge (preferences, policies, facts \
about people, the current state of things, decisions) is kind "semantic"; what happened in this task is "episodic".
- Give every fact the turn numbers it comes from.
- When something changed (the user moved, changed a preference, a policy changed), write the NEW state as a \
semantic fact and put the id of the existing memory that is now outdated (M..) in its "replaces". A memory \
that still holds is never replaced.
- relations: link your facts (F1 = your first fact, F2 the second, ...) to related existing memories (M..) \
or to each other, with a type from the list.
- errors and improvements: short lessons for the assistant, only when the log shows a real mistake or a \
better way.

Example. Existing memories: M1 (semantic): Anna works at Acme. Log: T0 [user]: I left Acme, I work at Globex now.
Answer: {{"facts": [{{"content": "Anna works at Globex.", "kind": "semantic", "entities": ["Anna", "Globex"], \
"turns": [0], "replaces": "M1", "confidence": 0.9}}], "relations": [], "errors": [], "improvements": []}}

The JSON fields:
{fields}"""


def field_guide() -> str:
    """The output fields and their descriptions, from the pydantic models (one source of truth)."""
    from graphmem.reflection.output import FactOut, ReflectionOutput, RelationOut

    out: list[str] = []
    for name, info in ReflectionOutput.model_fields.items():
        if info.exclude:
            continue
        out.append(f"- {name}: {info.description}")
        inner: dict[str, type[BaseModel]] = {"facts": FactOut, "relations": RelationOut}
        if name in inner:
            out += [f"    - {n}: {i.description}" for n, i in inner[name].model_fields.items()]
    return "\n".join(out)


def render_prompt(task: Task, log: Compressed, related: dict[str, Memory]) -> tuple[str, str]:
    """(system, user) messages of a reflection."""
    head = f"Task: {task.title or task.id}" + (f"\nOutcome: {task.outcome}" if task.outcome else "")
    memories = "\n".join(f"{alias} ({m.kind.value}): {shorten(m.content, 300)}" for alias, m in related.items())
    notes = []
    if log.omitted:
        notes.append(f"({log.omitted} less important turns left out)")
    body = "\n".join(render_line(line) for line in log.lines)
    user = (f"{head}\n\nExisting memories (ids you may use):\n{memories or '(none)'}\n\n"
            f"Interaction log{(' ' + ' '.join(notes)) if notes else ''}:\n{body}\n\n"
            "Reflect on this task. Answer with the JSON object.")
    return SYSTEM.format(fields=field_guide()), user
