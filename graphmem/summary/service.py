"""Writing and reading task summaries through the service (the LLM's is written by reflection, in its own
transaction: ``reflection.service``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.models import Memory, WriteResult
from graphmem.summary.draft import extractive_summary, summary_draft

if TYPE_CHECKING:
    from graphmem.service.memory_service import MemoryService

EXTRACTIVE_CONFIDENCE = 0.6
"""Below the default 1.0: quoted turns are less of a summary than the model's, which replaces it."""


async def write_extractive(memory: MemoryService, namespace: str, task_id: str) -> WriteResult | None:
    """Write the extractive summary of a task (no LLM): replaces the task's summary unless the text is the same
    (then nothing is written); None when the task has nothing to summarise."""
    task = await memory.tasks.get(namespace, task_id)
    turns = await memory.tasks.turns(namespace, task_id)
    text = extractive_summary(task, turns)
    draft = summary_draft(task, text, turn_ids=[t.id for t in turns], how="extractive",
                          confidence=EXTRACTIVE_CONFIDENCE) if text else None
    if draft is None:
        return None
    (result,) = (await memory.write_memories([draft], dedupe=False)).items
    return result


async def task_summary(memory: MemoryService, namespace: str, task_id: str) -> Memory | None:
    """The task's active summary, or None."""
    rows = await memory.store.read("summary/of_tasks", ids=[task_id], namespace=namespace)
    found = memory.store.memories(r["memory"] for r in rows)
    return found[0] if found else None


__all__ = ["EXTRACTIVE_CONFIDENCE", "task_summary", "write_extractive"]
