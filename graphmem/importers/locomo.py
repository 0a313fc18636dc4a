"""LoCoMo conversations (snap-research/LoCoMo ``locomo10.json`` format): the import plan, and the parsing
(``graphmem.importers.locomo_parse``, whose names this module re-exports).

Mapping (one sample = one namespace, ``locomo-<sample_id>``):

- each session with turns -> one ended ``Task`` (agent ``locomo``), started at the session's date time;
- each dialog turn -> one ``Turn`` and one EPISODIC memory ``"<speaker>: <text>"`` derived from it. LoCoMo is a
  chat between two people, not a user and an agent: ``speaker_a`` is given ``Role.USER`` and ``speaker_b``
  ``Role.ASSISTANT`` only so that the log has the usual two sides; the real name is kept in ``Turn.speaker``.
  Turn ``seq`` is its 0-based position in the session and it is dated ``seq`` minutes after the session start
  (the data has one time per session);
- each ``observation`` fact -> one SEMANTIC memory derived from the turns its evidence names;
- each ``session_summary`` -> the summary of its session's task (``graphmem.summary``: an EPISODIC memory derived
  from all the session's turns), unless ``plan_locomo(summaries=False)``.

The data gives times without a zone; they are read as UTC. Evidence ids are normalised (see ``split_evidence``)
and those that name no turn are counted in ``ImportPlan.unmatched_evidence``, never dropped silently.
"""

from __future__ import annotations

import re
from datetime import timedelta

from graphmem.errors import ValidationError
from graphmem.importers.locomo_parse import (
    LocomoObservation,
    LocomoQuestion,
    LocomoSample,
    LocomoSession,
    LocomoTurn,
    load_locomo,
    malformed_evidence,
    parse_evidence_ids,
    parse_sample,
    parse_session_datetime,
    split_evidence,
)
from graphmem.importers.locomo_summaries import session_summaries
from graphmem.importers.plan import ImportPlan, stable_id
from graphmem.models import MemoryDraft, MemoryKind, Role, Task, TaskStatus, Turn, check_namespace

AGENT = "locomo"
SOURCE_TURN = "locomo"
SOURCE_OBSERVATION = "locomo-observation"


# --- planning --------------------------------------------------------------------------------------------


def locomo_namespace(sample_id: str) -> str:
    """``locomo-<sample_id>``, lowercased, other characters replaced by ``-``, cut to 64 chars."""
    cleaned = re.sub(r"[^a-z0-9_.-]+", "-", f"locomo-{sample_id}".lower())
    return check_namespace(cleaned[:64].rstrip("-_."))


def plan_locomo(sample: LocomoSample, *, namespace: str | None = None, summaries: bool = True) -> ImportPlan:
    """The deterministic import plan of one sample (see the module docstring for the mapping); ``summaries``: with
    the sessions' summaries as their tasks' summaries."""
    ns = namespace if namespace is not None else locomo_namespace(sample.sample_id)
    try:
        check_namespace(ns)
    except ValueError as exc:
        raise ValidationError(str(exc), field="namespace") from None
    roles = {sample.speaker_a: Role.USER, sample.speaker_b: Role.ASSISTANT}
    turn_ids = {t.dia_id: stable_id(ns, "turn", t.dia_id) for t in sample.turns}
    tasks: list[Task] = []
    turns: list[Turn] = []
    memories: list[MemoryDraft] = []
    unmatched: dict[str, None] = {}
    for session in sample.sessions:
        task_id = stable_id(ns, "task", f"session_{session.number}")
        n = str(session.number)
        for t in session.turns:
            at = session.started_at + timedelta(minutes=t.seq)
            turns.append(
                Turn(
                    id=turn_ids[t.dia_id],
                    task_id=task_id,
                    seq=t.seq,
                    role=roles[t.speaker],
                    content=t.content,
                    speaker=t.speaker,
                    at=at,
                )
            )
            memories.append(
                MemoryDraft(
                    namespace=ns,
                    kind=MemoryKind.EPISODIC,
                    id=stable_id(ns, "mem", t.dia_id),
                    content=f"{t.speaker}: {t.content}",
                    created_at=at,
                    entities=(t.speaker,),
                    derived_from=(turn_ids[t.dia_id],),
                    task_id=task_id,
                    metadata={"dia_id": t.dia_id, "session": n},
                    source=SOURCE_TURN,
                )
            )
        for o in session.observations:
            for e in (*(e for e in o.evidence if e not in turn_ids), *o.malformed_evidence):
                unmatched[e] = None
            memories.append(
                MemoryDraft(
                    namespace=ns,
                    kind=MemoryKind.SEMANTIC,
                    id=stable_id(ns, "obs", n, o.speaker, str(o.index)),
                    content=o.fact,
                    created_at=session.started_at,
                    entities=(o.speaker,),
                    derived_from=tuple(turn_ids[e] for e in o.evidence if e in turn_ids),
                    task_id=task_id,
                    metadata={"evidence": ",".join(o.evidence), "session": n},
                    source=SOURCE_OBSERVATION,
                )
            )
        last_at = session.started_at + timedelta(minutes=session.turns[-1].seq)
        tasks.append(
            Task(
                id=task_id,
                namespace=ns,
                agent=AGENT,
                title=f"session {n}",
                status=TaskStatus.ENDED,
                started_at=session.started_at,
                ended_at=last_at,
            )
        )
    if summaries:
        memories += session_summaries(sample, tasks, turns)
    return ImportPlan(
        namespace=ns,
        tasks=tuple(tasks),
        turns=tuple(turns),
        memories=tuple(memories),
        entities=(sample.speaker_a, sample.speaker_b),
        unmatched_evidence=tuple(unmatched),
    )


# --- evaluation helpers ----------------------------------------------------------------------------------


def turn_memory_ids(plan: ImportPlan) -> dict[str, str]:
    """dia id -> id of the episodic memory of that turn."""
    return {m.metadata["dia_id"]: m.id for m in plan.memories if "dia_id" in m.metadata and m.id}


def memory_evidence(plan: ImportPlan) -> dict[str, tuple[str, ...]]:
    """memory id -> dia ids it reaches: an episodic memory its own turn, a semantic one the turns it derives from."""
    dia_of_turn = {m.derived_from[0]: m.metadata["dia_id"] for m in plan.memories if "dia_id" in m.metadata}
    out: dict[str, tuple[str, ...]] = {}
    for m in plan.memories:
        if m.id is not None and m.summary_of is None:  # a summary is no evidence (it reaches nothing)
            out[m.id] = tuple(dia_of_turn[t] for t in m.derived_from if t in dia_of_turn)
    return out


__all__ = [
    "AGENT",
    "SOURCE_OBSERVATION",
    "SOURCE_TURN",
    "LocomoObservation",
    "LocomoQuestion",
    "LocomoSample",
    "LocomoSession",
    "LocomoTurn",
    "load_locomo",
    "locomo_namespace",
    "malformed_evidence",
    "memory_evidence",
    "parse_evidence_ids",
    "parse_sample",
    "parse_session_datetime",
    "plan_locomo",
    "split_evidence",
    "turn_memory_ids",
]
