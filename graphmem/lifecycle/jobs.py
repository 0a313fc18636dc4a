"""The maintenance worker's jobs: a small registry of per-namespace jobs by name, with their intervals.

- ``lifecycle``: the life cycle sweep (``Sweeper``), every ``maintenance_lifecycle_interval_s``;
- ``consolidate``: ``graphmem.consolidation.service.Consolidator(service, settings, llm).run(namespace)``, every
  ``maintenance_consolidate_interval_s`` (imported when the job is built: a graphmem without that package runs the
  life cycle alone).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from graphmem.config import Settings
from graphmem.lifecycle.sweeper import Sweeper
from graphmem.lifecycle.worker import Job, JobSpec
from graphmem.service.memory_service import MemoryService

if TYPE_CHECKING:
    from graphmem.llm import LLMClient

LIFECYCLE, CONSOLIDATE = "lifecycle", "consolidate"
CONSOLIDATION_MODULE = "graphmem.consolidation.service"


def lifecycle_job(sweeper: Sweeper) -> Job:
    async def run(namespace: str) -> Mapping[str, int]:
        return (await sweeper.run(namespace)).counts()

    return run


def consolidation_job(service: MemoryService, settings: Settings, llm: LLMClient | None) -> Job | None:
    """The consolidation job, or None when ``graphmem.consolidation.service`` is not installed."""
    try:
        from graphmem.consolidation.service import Consolidator
    except ModuleNotFoundError as exc:
        if exc.name not in ("graphmem.consolidation", CONSOLIDATION_MODULE):
            raise  # the module is there but something it imports is not: a real error
        return None
    consolidator = Consolidator(service, settings, llm)

    async def run(namespace: str) -> Mapping[str, int]:
        return (await consolidator.run(namespace, dry_run=False)).counts()

    return run


def default_jobs(service: MemoryService, settings: Settings, llm: LLMClient | None = None) -> list[JobSpec]:
    """The jobs ``graphmem serve`` runs (an interval of 0 turns one off)."""
    sweeper = Sweeper(service.store, settings, versions=service.versions)
    jobs = [JobSpec(LIFECYCLE, lifecycle_job(sweeper), settings.maintenance_lifecycle_interval_s)]
    if settings.maintenance_consolidate_interval_s > 0 and (
            consolidate := consolidation_job(service, settings, llm)) is not None:
        jobs.append(JobSpec(CONSOLIDATE, consolidate, settings.maintenance_consolidate_interval_s))
    return jobs


__all__ = ["CONSOLIDATE", "LIFECYCLE", "consolidation_job", "default_jobs", "lifecycle_job"]
