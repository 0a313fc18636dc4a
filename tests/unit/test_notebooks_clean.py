"""Notebooks are committed without outputs (CI executes them; outputs would go stale and bloat diffs), each cell
with a stable id, and none names a machine path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in data["cells"] if c["cell_type"] == "code"]
    assert code
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)
    assert all(c.get("id") for c in data["cells"])
    source = "".join("".join(c["source"]) for c in data["cells"])
    for root in ("/home/", "/root/", "/tmp/"):
        assert root not in source
