"""What an importer produces: a pure, deterministic plan of tasks, turns and memories (nothing written yet)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from graphmem.models import MemoryDraft, MemoryKind, Task, Turn

IMPORT_ID_NAMESPACE = uuid.UUID("afc380e8-7790-4d59-9136-db5461490414")
"""Fixed for the life of the project: changing it changes every imported id."""


def stable_id(*parts: str) -> str:
    """A deterministic id (32 hex chars): uuid5 over ``IMPORT_ID_NAMESPACE`` of ``"/".join(parts)``.

    Importing the same source twice yields the same ids, so a second import is an idempotent re-write.
    """
    if not parts:
        raise ValueError("stable_id needs at least one part")
    return uuid.uuid5(IMPORT_ID_NAMESPACE, "/".join(parts)).hex


@dataclass(frozen=True)
class ImportPlan:
    """Everything one import would write into one namespace, in write order (tasks, turns, memories)."""

    namespace: str
    tasks: tuple[Task, ...]
    turns: tuple[Turn, ...]
    memories: tuple[MemoryDraft, ...]
    entities: tuple[str, ...]
    unmatched_evidence: tuple[str, ...]
    """Evidence ids of the source that name no turn of the plan (malformed ones included, verbatim)."""

    def counts(self) -> dict[str, int]:
        """Per kind; task summaries (``summary_of``) are counted as ``summaries``, not as ``episodic``."""
        kinds = [m.kind for m in self.memories if m.summary_of is None]
        return {
            "tasks": len(self.tasks),
            "turns": len(self.turns),
            "memories": len(self.memories),
            "episodic": kinds.count(MemoryKind.EPISODIC),
            "semantic": kinds.count(MemoryKind.SEMANTIC),
            "summaries": sum(1 for m in self.memories if m.summary_of is not None),
            "entities": len(self.entities),
            "unmatched_evidence": len(self.unmatched_evidence),
        }
