"""``graphmem import locomo``: a namespace whose stored memories fail verification is reported, with what to do,
and the command exits 1 (an import leaves stored ids as they are, so importing again would not show them)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphmem.importers.locomo
import graphmem.importers.runner
import graphmem.service.factory
from graphmem.cli import cli
from graphmem.importers.runner import ImportReport


@dataclass
class Sample:
    sample_id: str


@pytest.fixture
def imported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """An import of two samples whose reports say ``unverified[namespace]`` memories fail; no Neo4j touched."""
    unverified = {"locomo-conv-1": 0, "locomo-conv-2": 0}

    @asynccontextmanager
    async def open_service(settings: object) -> AsyncIterator[object]:
        yield object()

    async def run_plan(service: object, plan: str, **kwargs: object) -> ImportReport:
        return ImportReport(namespace=plan, created=5, unverified=unverified[plan])

    monkeypatch.setattr(graphmem.service.factory, "open_service", open_service)
    monkeypatch.setattr(graphmem.importers.runner, "run_plan", run_plan)
    monkeypatch.setattr(graphmem.importers.runner, "plan_units", lambda plan: 1)
    monkeypatch.setattr(graphmem.importers.locomo, "load_locomo", lambda path: [Sample("conv-1"), Sample("conv-2")])
    monkeypatch.setattr(graphmem.importers.locomo, "plan_locomo", lambda sample: f"locomo-{sample.sample_id}")
    path = tmp_path / "locomo.json"
    path.write_text("[]", encoding="utf-8")
    return path, unverified


def test_an_import_whose_memories_all_verify_exits_0(imported: tuple[Path, dict[str, int]]) -> None:
    path, _ = imported
    result = CliRunner().invoke(cli, ["import", "locomo", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("memories created 5") == 2
    assert "fail verification" not in result.output


def test_a_namespace_with_memories_that_fail_verification_is_named_with_the_fix(
        imported: tuple[Path, dict[str, int]]) -> None:
    path, unverified = imported
    unverified["locomo-conv-2"] = 3
    result = CliRunner().invoke(cli, ["import", "locomo", str(path)])
    assert result.exit_code == 1
    assert "locomo-conv-2: 0 tasks" in result.stdout
    assert "3 stored memories fail verification under the current signing keys" in result.stdout
    assert "locomo-conv-1" not in result.stderr
    assert "graphmem integrity check --namespace locomo-conv-2" in result.stderr
    assert "graphmem db wipe-namespace locomo-conv-2 --yes" in result.stderr
