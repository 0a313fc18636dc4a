"""Planning a reflection's write (pure): drafts of the new facts and lessons with stable ids, the edges between
them and existing memories, and the memories they supersede. The write itself is in service.py."""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pydantic

from graphmem.models import MAX_TAGS, MemoryDraft, MemoryKind, RelationType, Turn
from graphmem.reflection.output import FACT_REF, REPAIR_ECHO, ReflectionOutput

SOURCE = "reflection"
LESSON_CONFIDENCE = 0.7
MODEL_EDGE_TYPES = tuple(t for t in RelationType if t not in (
    RelationType.SUPERSEDES, RelationType.DERIVED_FROM, RelationType.SIMILAR_TO))
"""The edge types the model may write. SUPERSEDES only comes with a fact's ``replaces`` (the status change and
the edge go together, and a small model scatters edge types: a stray SUPERSEDES edge must not retire a fact
that still holds); DERIVED_FROM is provenance we write ourselves; SIMILAR_TO is computed."""


def normalize(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def stable_id(task_id: str, kind: str, content: str) -> str:
    """The same task and the same text give the same id, so re-reflecting writes nothing new."""
    text = " ".join(content.lower().split())
    return uuid.uuid5(uuid.NAMESPACE_URL, f"graphmem:reflection:{task_id}:{kind}:{text}").hex


WORD = re.compile(r"[a-z0-9]+")
STOP_WORDS = ("a an the and or of to in on at for is are was were be been it its this that with from by as "
              "i you we they he she my your our their me us them do does did not no can will would")
STOP = frozenset(STOP_WORDS.split(" "))


def best_turn(content: str, turns: Sequence[Turn]) -> tuple[str, ...]:
    """Provenance for a fact the model gave no turns for: the turn sharing the most content words with it
    (at least two), or none."""
    words = set(WORD.findall(content.lower())) - STOP
    scored = [(len(words & set(WORD.findall(t.content.lower()))), -t.seq, t.id) for t in turns]
    best = max(scored, default=(0, 0, ""))
    return (best[2],) if best[0] >= 2 else ()


@dataclass(frozen=True)
class EdgeSpec:
    """An edge between draft indices (int) or existing memory ids (str)."""

    source: int | str
    type: RelationType
    target: int | str


@dataclass
class ReflectionPlan:
    drafts: list[MemoryDraft] = field(default_factory=list)
    fact_count: int = 0
    """drafts[:fact_count] are facts, the rest lessons."""
    edges: list[EdgeSpec] = field(default_factory=list)
    supersedes: list[tuple[int, str]] = field(default_factory=list)
    """(draft index, existing memory id) pairs: the memory is replaced by the draft's memory."""
    copies: list[tuple[str, str]] = field(default_factory=list)
    """(content, id of the shown memory) of facts that copied it word for word (not written)."""
    dropped: int = 0
    """Facts and lessons left out as unusable (blank or too long text); edges naming such a fact go too."""


MAX_ENTITY_CHARS = 128


def clean_entities(names: Sequence[str]) -> tuple[str, ...]:
    """The entity names a memory may carry: blank and over-long names are dropped, at most MAX_TAGS kept."""
    kept = [" ".join(n.split()) for n in names]
    return tuple(dict.fromkeys(n for n in kept if n and len(n) <= MAX_ENTITY_CHARS))[:MAX_TAGS]


def draft_or_none(**fields: Any) -> MemoryDraft | None:
    """A draft of what the model wrote, or None when the text cannot be a memory: one bad item of an answer
    must not fail the whole reflection."""
    try:
        return MemoryDraft(**fields)
    except pydantic.ValidationError:
        return None


def plan_reflection(
    output: ReflectionOutput, *, namespace: str, task_id: str, turns: Sequence[Turn],
    aliases: Mapping[str, str], now: datetime, shown: Mapping[str, str] | None = None,
) -> ReflectionPlan:
    """``aliases`` maps the M ids shown to real memory ids; references were checked (output.check_references).

    ``shown`` maps the shown memories' contents to their ids: a "fact" that copies one of them word for word
    is the prompt echoed back, not something learned: it is not written (no strengthening either), and edges
    naming it point at the memory it copied.
    """
    plan = ReflectionPlan()
    turn_ids = {t.seq: t.id for t in turns}
    copies = {normalize(text): memory_id for text, memory_id in (shown or {}).items()}
    seen: dict[str, int] = {}  # repeated facts (same text) collapse into the first
    fact_index: dict[int, int | str] = {}  # F number -> draft index, or the id of the memory it copied
    for n, fact in enumerate(output.facts, start=1):
        if REPAIR_ECHO.search(fact.content):  # our own repair message copied back (its edges go with it)
            plan.dropped += 1
            continue
        key = normalize(fact.content)
        if key in copies:
            fact_index[n] = copies[key]
            plan.copies.append((fact.content, copies[key]))
            continue
        if key in seen:
            fact_index[n] = seen[key]
            continue
        kind = MemoryKind(fact.kind)
        draft = draft_or_none(
            namespace=namespace, kind=kind, content=fact.content.strip(), id=stable_id(task_id, kind.value, key),
            confidence=fact.confidence, entities=clean_entities(fact.entities), source=f"{SOURCE}:{task_id}",
            derived_from=tuple(dict.fromkeys(turn_ids[t] for t in fact.turns if t in turn_ids))
            or best_turn(fact.content, turns),
            task_id=task_id, valid_from=now if fact.replaces != "none" else None,
        )
        if draft is None:
            plan.dropped += 1
            continue
        seen[key] = fact_index[n] = index = len(plan.drafts)
        plan.drafts.append(draft)
        if fact.replaces != "none":
            plan.supersedes.append((index, aliases[fact.replaces]))
    plan.fact_count = len(plan.drafts)
    for text in [*output.errors, *output.improvements]:
        content = " ".join(text.split())
        if REPAIR_ECHO.search(content):  # our own repair message copied back: no lesson of the task
            plan.dropped += 1
            continue
        lesson_id = stable_id(task_id, MemoryKind.LESSON.value, content)
        if any(d.id == lesson_id for d in plan.drafts):
            continue
        lesson = draft_or_none(
            namespace=namespace, kind=MemoryKind.LESSON, content=content, id=lesson_id,
            confidence=LESSON_CONFIDENCE, source=f"{SOURCE}:{task_id}", task_id=task_id)
        if lesson is None:
            plan.dropped += 1
            continue
        plan.drafts.append(lesson)

    def resolve(ref: str) -> int | str | None:
        match = FACT_REF.match(ref)
        return fact_index.get(int(match.group(1))) if match else aliases.get(ref)

    for rel in output.relations:
        source, target = resolve(rel.source), resolve(rel.target)
        if source is None or target is None or source == target:  # a dropped fact (or a slip): no edge
            continue
        edge_type = rel.type if rel.type in MODEL_EDGE_TYPES else RelationType.CONTRADICTS if (
            rel.type is RelationType.SUPERSEDES) else RelationType.RELATES_TO
        plan.edges.append(EdgeSpec(source, edge_type, target))
    plan.supersedes = list(dict.fromkeys(plan.supersedes))
    plan.edges = list(dict.fromkeys(plan.edges))
    return plan


def resolve_rows(
    plan: ReflectionPlan, memory_ids: Sequence[str], *, now: datetime, created: Sequence[bool] | None = None,
    protected: AbstractSet[str] = frozenset(),
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Edge rows (for relation/relate), supersede rows, and how many supersedes were refused, once each draft's
    memory id is known (created, or the existing memory a near-duplicate strengthened).

    Edges that became self-edges are dropped. A supersede needs new information: only a fact this reflection
    *created* may replace a memory (one that merely restated, and so strengthened, a known memory may not);
    a memory this reflection wrote or strengthened is never replaced by it; and each old memory is replaced
    once. Small models name "replaced" memories that still hold; these rails keep that from retiring them.
    ``protected`` memories (trusted more than the task reflected on) are never replaced: a low-trust conversation
    may not retire what a more trusted writer said.
    """
    made = list(created) if created is not None else [True] * len(memory_ids)

    def real(ref: int | str) -> str:
        return memory_ids[ref] if isinstance(ref, int) else ref

    edges: list[dict[str, Any]] = []
    for edge in plan.edges:
        a, b = real(edge.source), real(edge.target)
        if a != b:
            edges.append({"source_id": a, "target_id": b, "type": edge.type.value, "weight": 1.0,
                          "confidence": 1.0, "source": SOURCE, "at": now})
    touched = set(memory_ids)
    supersede: dict[str, dict[str, Any]] = {}
    refused = 0
    for index, old in plan.supersedes:
        new = memory_ids[index]
        if not made[index] or old in touched or old in supersede or old in protected:
            refused += new != old
            continue
        supersede[old] = {"new": new, "old": old, "at": now}
    unique_edges = list({(e["source_id"], e["type"], e["target_id"]): e for e in edges}.values())
    return unique_edges, list(supersede.values()), refused
