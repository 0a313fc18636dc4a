"""The summary line of ``graphmem import``: a re-import that changes nothing says so."""

from __future__ import annotations

from typing import Any

from graphmem.importers.runner import ImportReport, applied_ids, write_drafts
from graphmem.models import BatchResult, MemoryDraft, MemoryKind, WriteAction, WriteResult

NS = "demo"


def draft(content: str, id_: str | None = None, kind: MemoryKind = MemoryKind.SEMANTIC) -> MemoryDraft:
    return MemoryDraft(namespace=NS, kind=kind, content=content, id=id_)


class FakeStore:
    """The one statement the import summary reads: the draft ids a namespace accounts for."""

    def __init__(self, written: dict[str, list[str]]) -> None:
        self.written = written
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def read(self, name: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        assert name == "eval/written_ids"
        return [{"ids": self.written.get(params["namespace"], [])}]


class FakeService:
    """The write path's answers, fixed: what ``MemoryService.write_many`` returns for the batches."""

    def __init__(self, store: FakeStore, actions: list[WriteAction]) -> None:
        self.store = store
        self.actions = actions
        self.written: list[str | None] = []

    async def write_many(self, batches: list[list[MemoryDraft]], *, dedupe: bool,
                         progress: Any = None) -> list[BatchResult]:
        self.written += [d.id for batch in batches for d in batch]
        items = tuple(WriteResult(index=i, id=f"m{i}", action=a) for i, a in enumerate(self.actions))
        return [BatchResult(items=items)]


def test_a_first_import_line_lists_created_kinds() -> None:
    report = ImportReport(namespace=NS, tasks=1, turns=2)
    drafts = [draft("a", "d1"), draft("b", "d2", MemoryKind.EPISODIC), draft("c", "d3")]
    results = [WriteResult(index=0, id="d1", action=WriteAction.CREATED),
               WriteResult(index=1, id="d2", action=WriteAction.CREATED),
               WriteResult(index=2, id="d1", action=WriteAction.STRENGTHENED)]
    report.count(drafts, results, applied=set())
    assert (report.created, report.strengthened, report.unchanged) == (2, 1, 0)
    assert report.line().startswith("demo: 1 tasks, 2 turns, memories created 2 (episodic 1, semantic 1), "
                                    "strengthened 1, unchanged 0, ")


def test_a_re_import_is_unchanged_not_strengthened_and_has_no_empty_parentheses() -> None:
    report = ImportReport(namespace=NS)
    drafts = [draft("a", "d1"), draft("c", "d3")]
    results = [WriteResult(index=0, id="d1", action=WriteAction.EXISTS),
               WriteResult(index=1, id="d1", action=WriteAction.STRENGTHENED)]  # d3's strengthening was applied
    report.count(drafts, results, applied={"d1", "d3"})
    assert (report.created, report.strengthened, report.unchanged) == (0, 0, 2)
    line = report.line()
    assert "memories created 0, strengthened 0, unchanged 2," in line
    assert "()" not in line


def test_a_repeat_without_an_id_strengthens_again() -> None:
    # no id, no token: memory/strengthen applies it every time (confidence moves), so the line says strengthened
    report = ImportReport(namespace=NS)
    report.count([draft("a")], [WriteResult(index=0, id="m1", action=WriteAction.STRENGTHENED)], applied={"m1"})
    assert (report.strengthened, report.unchanged) == (1, 0)


async def test_write_drafts_reads_the_applied_ids_before_writing_and_skips_them() -> None:
    store = FakeStore({NS: ["d1", "d3"]})
    service = FakeService(store, [WriteAction.STRENGTHENED])
    report = ImportReport(namespace=NS)
    await write_drafts(service, [draft("a", "d3"), draft("b", "d4")], report,  # type: ignore[arg-type]
                       batch_size=10, dedupe=True)
    assert store.calls == [("eval/written_ids", {"namespace": NS})]
    assert service.written == ["d4"]  # d3 was applied before: not written again, whatever it would hit now
    assert (report.strengthened, report.unchanged) == (1, 1)


async def test_applied_ids_reads_nothing_for_drafts_without_ids() -> None:
    store = FakeStore({NS: ["d1"]})
    assert await applied_ids(FakeService(store, []), [draft("a")]) == set()  # type: ignore[arg-type]
    assert store.calls == []
