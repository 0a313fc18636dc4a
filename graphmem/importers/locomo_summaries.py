"""LoCoMo's session summaries as the summaries of the sessions' tasks (``graphmem.summary``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.models import MemoryDraft, Task, Turn
from graphmem.summary import summary_draft

if TYPE_CHECKING:
    from graphmem.importers.locomo import LocomoSample

SUMMARY_HOW = "locomo"


def session_summaries(sample: LocomoSample, tasks: Sequence[Task], turns: Sequence[Turn]) -> list[MemoryDraft]:
    """One summary draft per session that has a summary (``tasks`` in session order, as ``plan_locomo`` makes
    them), derived from all of that session's turns and dated at its start."""
    by_task: dict[str, list[str]] = {}
    for t in turns:
        by_task.setdefault(t.task_id, []).append(t.id)
    out: list[MemoryDraft] = []
    for session, task in zip(sample.sessions, tasks, strict=True):
        if session.summary is None:
            continue
        draft = summary_draft(task, session.summary, turn_ids=by_task.get(task.id, ()), how=SUMMARY_HOW)
        if draft is not None:
            out.append(draft)
    return out


__all__ = ["SUMMARY_HOW", "session_summaries"]
