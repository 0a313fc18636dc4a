"""What the notebooks share: where the LoCoMo data is, and one LoCoMo conversation imported into its own namespace
(idempotent: stable ids, so re-running a notebook adds nothing)."""

from __future__ import annotations

import os
from pathlib import Path

from graphmem.errors import ConfigError
from graphmem.importers.locomo import LocomoSample, load_locomo, plan_locomo
from graphmem.importers.runner import ImportReport, run_plan
from graphmem.service import MemoryService

DATA_ENV = "GRAPHMEM_LOCOMO_DATA"
RELATIVE = Path("shared") / "data" / "locomo" / "locomo-dev.json"


def locomo_path(start: Path | None = None) -> Path:
    """``$GRAPHMEM_LOCOMO_DATA``, else ``shared/data/locomo/locomo-dev.json`` beside the checkout (looked for from
    ``start``, the working directory by default, upwards)."""
    if value := os.environ.get(DATA_ENV):
        return Path(value)
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / RELATIVE).is_file():
            return folder / RELATIVE
    raise ConfigError(f"LoCoMo data not found: set {DATA_ENV} to locomo-dev.json (it lives in ../shared)")


def sample(sample_id: str = "conv-26", sessions: int | None = None, path: Path | None = None) -> LocomoSample:
    """One LoCoMo conversation, cut to its first ``sessions`` sessions (and the questions they answer)."""
    from graphmem.eval.locomo import restrict_sample

    found = [s for s in load_locomo(path or locomo_path()) if s.sample_id == sample_id]
    if not found:
        raise ConfigError(f"no LoCoMo sample {sample_id!r}")
    return restrict_sample(found[0], sessions) if sessions else found[0]


async def import_sample(service: MemoryService, chosen: LocomoSample, namespace: str) -> ImportReport:
    """The conversation's sessions as tasks with their turns, one episodic memory per turn and LoCoMo's
    observations as semantic memories derived from their evidence turns (what ``graphmem import locomo`` does)."""
    return await run_plan(service, plan_locomo(chosen, namespace=namespace))


def notebook_sessions(default: int | None = None) -> int | None:
    """``$GRAPHMEM_NOTEBOOK_SESSIONS`` (CI runs the notebooks on a few sessions), else ``default`` (all)."""
    value = os.environ.get("GRAPHMEM_NOTEBOOK_SESSIONS")
    return int(value) if value else default


__all__ = ["import_sample", "locomo_path", "notebook_sessions", "sample"]
