"""Memory life cycle: the policy (TTL, archive, purge), the sweeper that applies it to a namespace, and the
maintenance worker that runs the sweep (and consolidation) on a schedule, with its state in Neo4j."""

from graphmem.lifecycle.policy import ArchiveRule, LifecyclePolicy
from graphmem.lifecycle.sweeper import LifecycleReport, Sweeper
from graphmem.lifecycle.worker import Job, JobRun, JobSpec, MaintenanceWorker

__all__ = ["ArchiveRule", "Job", "JobRun", "JobSpec", "LifecyclePolicy", "LifecycleReport", "MaintenanceWorker",
           "Sweeper"]
