"""The questions of the LoCoMo evaluation: samples picked and cut to their first sessions, each question with
the evidence turns it is scored against, and the plan's turn ids mapped back to dia ids."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from graphmem.errors import ValidationError
from graphmem.eval.metrics import split_known
from graphmem.importers.locomo import LocomoSample
from graphmem.importers.plan import ImportPlan
from graphmem.models import MemoryKind


def restrict_sample(sample: LocomoSample, sessions: int) -> LocomoSample:
    """``sample`` cut to its first ``sessions`` sessions, keeping only the questions whose evidence all lies in
    them (questions without any evidence id are dropped too)."""
    if sessions < 1:
        raise ValidationError(f"sessions must be at least 1, got {sessions}", field="sessions")
    kept = sample.sessions[:sessions]
    known = {t.dia_id for s in kept for t in s.turns}
    questions = tuple(q for q in sample.questions if q.evidence and all(e in known for e in q.evidence))
    return dataclasses.replace(sample, sessions=kept, questions=questions)


def turn_dia_ids(plan: ImportPlan) -> dict[str, str]:
    """Turn id -> dia id, from the plan's turn memories (each derives from exactly its own turn)."""
    return {m.derived_from[0]: m.metadata["dia_id"] for m in plan.memories
            if m.kind is MemoryKind.EPISODIC and m.derived_from and "dia_id" in m.metadata}


@dataclass(frozen=True)
class Question:
    sample: str
    index: int
    """0-based position in the sample's ``qa`` list (after any restriction)."""
    text: str
    category: int
    gold: tuple[str, ...]
    """The evidence dia ids that name a turn of the sample."""
    unmatched: tuple[str, ...]


def prepare_questions(sample: LocomoSample) -> list[Question]:
    known = {t.dia_id for t in sample.turns}
    out: list[Question] = []
    for i, q in enumerate(sample.questions):
        ev = split_known(q.evidence, known, q.malformed_evidence)
        out.append(Question(sample.sample_id, i, q.question, q.category, ev.valid, ev.unmatched))
    return out


def select_samples(all_samples: Sequence[LocomoSample], wanted: Iterable[str] | None) -> list[LocomoSample]:
    if not wanted:
        return list(all_samples)
    ids = list(dict.fromkeys(wanted))
    by_id = {s.sample_id: s for s in all_samples}
    missing = [s for s in ids if s not in by_id]
    if missing:
        raise ValidationError(f"unknown sample ids {missing}; the file has {sorted(by_id)}", field="sample")
    return [by_id[s] for s in ids]
