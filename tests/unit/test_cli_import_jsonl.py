"""``graphmem import jsonl``: a file that is not UTF-8 is one INVALID_INPUT line naming the file and the byte offset
(a byte order mark is fine); a bad line is named ``line N``; a namespace whose stored memories fail verification is
reported with the fix and exits 1, as ``import locomo`` does; the report counts the entities the import added."""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import graphmem.importers.runner
import graphmem.service.factory
from graphmem.cli import cli, main
from graphmem.errors import ValidationError
from graphmem.importers.jsonl import read_jsonl
from graphmem.importers.runner import ImportReport, import_drafts, write_drafts
from graphmem.models import BatchResult, MemoryDraft, MemoryKind, WriteAction, WriteResult
from graphmem.security.integrity import Integrity

LINE = '{"kind": "semantic", "content": "Paris is in France", "id": "p1"}\n'


pytestmark = pytest.mark.usefixtures("no_graphmem_env")


# --- reading the file ---------------------------------------------------------------------------------------------


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(codecs.BOM_UTF8 + LINE.encode())
    [draft] = read_jsonl(path, default_namespace="helperx-a")
    assert draft.id == "p1"


def test_a_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.jsonl"
    data = codecs.BOM_UTF8 + LINE.encode() + '{"kind": "semantic", "content": "café"}\n'.encode("latin-1")
    path.write_bytes(data)
    offset = data.index(b"\xe9")
    with pytest.raises(SystemExit) as exit_info:
        main(["import", "jsonl", str(path), "--namespace", "helperx-a"])
    assert exit_info.value.code == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (f"graphmem: error [INVALID_INPUT]: {path}: not UTF-8 text: byte offset {offset} (line 2): 0xe9 "
                   "(invalid continuation byte); save the file as UTF-8\n")


def test_a_bad_line_is_named_by_its_line_number_not_as_an_item(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("# header\n" + LINE + '{"kind": "semantic"}\n', encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        read_jsonl(path, default_namespace="helperx-a")
    assert str(info.value).startswith(f"{path}: line 3: content: Field required")
    assert info.value.item == 3
    assert "item" not in str(info.value)


def test_a_line_separator_inside_a_string_does_not_split_the_line(tmp_path: Path) -> None:
    path = tmp_path / "ls.jsonl"
    path.write_text('{"kind": "semantic", "content": "a\u2028b\u0085c"}\r\n', encoding="utf-8")
    [draft] = read_jsonl(path, default_namespace="helperx-a")
    assert draft.content == "a\u2028b\u0085c"


# --- the report ---------------------------------------------------------------------------------------------------


class FakeStore:
    """The statements an import of drafts reads: written ids, and the entity count (``entities`` after each)."""

    def __init__(self, entities: list[int]) -> None:
        self.entities = entities
        self.integrity = Integrity(None)

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        if name == "eval/written_ids":
            return [{"ids": []}]
        assert name == "analysis/entity_count"
        return [{"n": self.entities.pop(0)}]


class FakeService:
    def __init__(self, store: FakeStore) -> None:
        self.store = store

    async def write_many(self, batches: list[list[MemoryDraft]], *, dedupe: bool,
                         progress: Any = None) -> list[BatchResult]:
        return [BatchResult(items=tuple(WriteResult(index=i, id=f"m{i}", action=WriteAction.CREATED)
                                        for i in range(len(b)))) for b in batches]


async def test_the_report_counts_the_entities_the_import_added() -> None:
    drafts = [MemoryDraft(namespace="helperx-a", kind=MemoryKind.SEMANTIC, content=f"fact {i}") for i in range(3)]
    report = await import_drafts(FakeService(FakeStore([5, 13])), "helperx-a", drafts,  # type: ignore[arg-type]
                                 batch_size=2, dedupe=True)
    assert (report.created, report.entities, report.unverified) == (3, 8, 0)
    assert "memories created 3 (semantic 3), strengthened 0, unchanged 0, 8 entities," in report.line()


@pytest.mark.parametrize("batch", [0, -1])
async def test_a_batch_below_one_is_refused_not_a_range_error(batch: int) -> None:
    drafts = [MemoryDraft(namespace="helperx-a", kind=MemoryKind.SEMANTIC, content="x")]
    service = FakeService(FakeStore([]))
    with pytest.raises(ValidationError, match="batch size must be at least 1"):
        await write_drafts(service, drafts, ImportReport(namespace="helperx-a"),  # type: ignore[arg-type]
                           batch_size=batch, dedupe=True)


@pytest.fixture
def imported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """A file of two namespaces whose reports say ``unverified[namespace]`` memories fail; no Neo4j touched."""
    unverified = {"helperx-a": 0, "helperx-b": 0}

    @asynccontextmanager
    async def open_service(settings: object) -> AsyncIterator[object]:
        yield object()

    async def fake_import(service: object, namespace: str, drafts: list[MemoryDraft], **kwargs: object
                          ) -> ImportReport:
        return ImportReport(namespace=namespace, created=len(drafts), unchanged=0, unverified=unverified[namespace])

    monkeypatch.setattr(graphmem.service.factory, "open_service", open_service)
    monkeypatch.setattr(graphmem.importers.runner, "import_drafts", fake_import)
    path = tmp_path / "two.jsonl"
    path.write_text(LINE + '{"namespace": "helperx-b", "kind": "semantic", "content": "x"}\n', encoding="utf-8")
    return path, unverified


def test_an_import_whose_memories_all_verify_exits_0(imported: tuple[Path, dict[str, int]]) -> None:
    path, _ = imported
    result = CliRunner().invoke(cli, ["import", "jsonl", str(path), "--namespace", "helperx-a"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("memories created 1") == 2
    assert "fail verification" not in result.output


def test_stored_memories_that_fail_verification_are_named_with_the_fix_and_exit_1(
        imported: tuple[Path, dict[str, int]]) -> None:
    path, unverified = imported
    unverified["helperx-a"] = 3
    result = CliRunner().invoke(cli, ["import", "jsonl", str(path), "--namespace", "helperx-a"])
    assert result.exit_code == 1
    assert "3 stored memories fail verification under the current signing keys" in result.stdout
    assert "helperx-b" not in result.stderr
    assert "graphmem integrity check --namespace helperx-a" in result.stderr
    assert "graphmem db wipe-namespace helperx-a --yes" in result.stderr
