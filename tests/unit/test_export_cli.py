"""``graphmem export``: a bad namespace or an unwritable file is one error line, a missing folder is made; memories
that fail verification are counted, named on stderr with the fix, and make the command exit 1; entities carry their
properties. The store is faked at its I/O edge (``read``); the signing check is the real one."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import networkx as nx
import pytest
from click.testing import CliRunner

import graphmem.store
from graphmem.analysis import export_namespace
from graphmem.cli import cli, main
from graphmem.config import Settings
from graphmem.errors import ValidationError
from graphmem.security.integrity import Integrity
from graphmem.security.signing import IntegrityMode, Signer, parse_keys
from graphmem.store import Store

AT = datetime(2023, 5, 8, 13, 0, tzinfo=UTC)
NS = "helperx-export"
SIGNER = Signer(parse_keys("now:" + "s" * 32))


def memory(i: int, *, signed: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"id": f"m{i}", "namespace": NS, "kind": "semantic", "content": f"fact {i}",
                            "status": "active", "confidence": 1.0, "importance": 0.5, "created_at": AT}
    signature, key = SIGNER.sign(data) if signed else ("0" * 64, "old")
    return {"memory": {**data, "signature": signature, "signature_key": key},
            "edges": [{"type": "ABOUT", "label": "Entity", "target": "paris", "weight": 1.0, "gap_s": None}]}


Page = tuple[list[dict[str, Any]], Callable[[dict[str, Any]], str]]
"""A page statement's rows, and the key its ``after`` is compared with."""


class FakeStore:
    """``read`` answers the three page statements from fixed lists, honouring ``after`` and ``limit``."""

    def __init__(self, signed: list[bool], mode: IntegrityMode = IntegrityMode.HIDE) -> None:
        self.integrity = Integrity(SIGNER, mode)
        self.memories = [memory(i, signed=s) for i, s in enumerate(signed)]
        self.entities: list[dict[str, Any]] = [
            {"namespace": NS, "name": "paris", "kind": "place", "created_at": AT, "degree": 2}]

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        pages: dict[str, Page] = {"analysis/memory_page": (self.memories, lambda r: r["memory"]["id"]),
                                  "analysis/entity_page": (self.entities, lambda r: r["name"]),
                                  "analysis/task_page": ([], lambda r: r["task"]["id"])}
        rows, key = pages[name]
        return [r for r in rows if key(r) > params["after"]][: params["limit"]]


pytestmark = pytest.mark.usefixtures("no_graphmem_env")


@pytest.fixture
def stores(monkeypatch: pytest.MonkeyPatch) -> list[FakeStore]:
    """Put a FakeStore in the list: ``Store.connect`` yields it."""
    held: list[FakeStore] = []

    @asynccontextmanager
    async def connect(settings: Settings) -> AsyncIterator[FakeStore]:
        yield held[0]

    monkeypatch.setattr(graphmem.store.Store, "connect", connect)
    return held


async def test_memories_that_fail_verification_are_counted() -> None:
    graph = await export_namespace(cast(Store, FakeStore([True, False, False])), NS, page_size=2)
    assert [n for n, a in graph.nodes(data=True) if a["label"] == "Memory"] == ["Memory:m0"]
    assert (graph.graph["memories_unverified"], graph.graph["memories_flagged"]) == (2, 0)
    flagged = await export_namespace(cast(Store, FakeStore([True, False], IntegrityMode.FLAG)), NS)
    assert (flagged.graph["memories_unverified"], flagged.graph["memories_flagged"]) == (0, 1)
    assert flagged.nodes["Memory:m1"]["integrity"] == "unknown_key"


async def test_an_entity_carries_its_properties() -> None:
    graph = await export_namespace(cast(Store, FakeStore([True])), NS)
    assert graph.nodes["Entity:paris"] == {"label": "Entity", "namespace": NS, "name": "paris", "kind": "place",
                                           "created_at": AT, "degree_about": 2}


async def test_a_bad_namespace_is_invalid_input() -> None:
    with pytest.raises(ValidationError, match="namespace 'Bad NS' must be"):
        await export_namespace(cast(Store, FakeStore([])), "Bad NS")


def test_the_command_refuses_a_bad_namespace_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "Bad NS", "--out", str(tmp_path / "x.graphml")])
    assert exit_info.value.code == 1
    _, err = capsys.readouterr()
    assert err.splitlines() == ["graphmem: error [INVALID_INPUT]: namespace 'Bad NS' must be 1-64 chars of lowercase "
                                "letters, digits, '_', '.', '-', starting with a letter or digit"]


def test_the_command_makes_the_missing_folders(stores: list[FakeStore], tmp_path: Path) -> None:
    stores.append(FakeStore([True, True]))
    out = tmp_path / "no" / "such" / "dir" / "a.graphml"
    result = CliRunner().invoke(cli, ["export", NS, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{NS}: 3 nodes, 2 edges -> {out}\n"
    assert nx.read_graphml(out).nodes["Entity:paris"]["kind"] == "place"


def test_a_file_that_cannot_be_written_is_one_line(stores: list[FakeStore], tmp_path: Path) -> None:
    stores.append(FakeStore([True]))
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["export", NS, "--out", str(blocker / "a.graphml")])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"graphmem: error [INVALID_INPUT]: cannot write {blocker / 'a.graphml'}: ")
    assert len(result.stderr.splitlines()) == 1


def test_memories_left_out_are_named_with_the_fix_and_exit_1(stores: list[FakeStore], tmp_path: Path) -> None:
    stores.append(FakeStore([True, False, False]))
    out = tmp_path / "a.json"
    result = CliRunner().invoke(cli, ["export", NS, "--out", str(out), "--format", "json"])
    assert result.exit_code == 1
    assert result.stdout == f"{NS}: 2 nodes, 1 edges -> {out}\n"  # the file holds what verified
    assert out.exists()
    assert (f"{NS}: 2 stored memories fail verification under GRAPHMEM_SIGNING_KEYS (signed under another key, or "
            "changed outside graphmem), and were left out of the export") in result.stderr
    assert "export again" in result.stderr
    assert f"graphmem integrity check --namespace {NS}" in result.stderr
    assert f"graphmem db wipe-namespace {NS} --yes" in result.stderr


def test_flagged_memories_are_exported_and_noted(stores: list[FakeStore], tmp_path: Path) -> None:
    stores.append(FakeStore([True, False], IntegrityMode.FLAG))
    result = CliRunner().invoke(cli, ["export", NS, "--out", str(tmp_path / "a.graphml")])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{NS}: 3 nodes, 2 edges")
    assert f"{NS}: 1 memories fail verification and are exported flagged" in result.stderr
