"""``graphmem db rebuild-graph``: the graph construction of the write path, run over memories already stored
(graphs written before it existed, or after its settings changed). A page at a time, one transaction per page;
every statement MERGEs, so running it twice adds nothing (the report counts the edges a run added, the namespace's
count after it less the count before it, and a writer beside it adds to that: 0 on a second run). It also stores
the answer kinds (``graph.answer_kinds``) of memories written before the write path computed them. First, entities
named before caller-named entities were normalised ("Caroline" beside the extractor's "caroline") are merged into
the entity of the normal name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graphmem.graph.answer_kinds import held_kinds
from graphmem.graph.construct import GraphOptions, graph_rows
from graphmem.graph.entities import normalise_name
from graphmem.models import Memory, MemoryKind, MemoryStatus, utcnow
from graphmem.service.neighbours import stored_neighbours
from graphmem.store import Step, Store


@dataclass
class RebuildReport:
    namespaces: list[str] = field(default_factory=list)
    memories: int = 0
    entity_links: int = 0
    """ABOUT edges this run added (``similar_links``, ``follow_links``: SIMILAR_TO, FOLLOWS), each edge once."""
    similar_links: int = 0
    follow_links: int = 0
    entities_merged: int = 0
    answer_kinds_set: int = 0

    def line(self) -> str:
        return (f"rebuilt the graph of {self.memories} memories in {len(self.namespaces)} namespaces: "
                f"{self.entity_links} ABOUT, {self.similar_links} SIMILAR_TO, {self.follow_links} FOLLOWS edges "
                f"created; {self.entities_merged} entities merged into their normal name; answer kinds stored on "
                f"{self.answer_kinds_set} memories")


async def rebuild_graph(store: Store, options: GraphOptions, *, namespaces: Sequence[str] | None = None,
                        similarity: str = "cosine", page: int = 500,
                        progress: Callable[[int], object] | None = None) -> RebuildReport:
    report = RebuildReport()
    names = list(namespaces) if namespaces else [r["namespace"] for r in await store.read("graph/namespaces")]
    for namespace in names:
        report.namespaces.append(namespace)
        report.entities_merged += await merge_entity_names(store, namespace, page=page)
        before = await construction_edges(store, namespace)  # the link statements MERGE: count what they added
        after = ""
        while True:
            rows = await store.read("graph/rebuild_page", namespace=namespace, after=after, limit=page)
            if not rows:
                break
            await _rebuild_page(store, rows, options, similarity, report)
            report.memories += len(rows)
            after = rows[-1]["id"]
            if progress is not None:
                progress(len(rows))
        added = await construction_edges(store, namespace)
        report.entity_links += added["ABOUT"] - before["ABOUT"]
        report.similar_links += added["SIMILAR_TO"] - before["SIMILAR_TO"]
        report.follow_links += added["FOLLOWS"] - before["FOLLOWS"]
    return report


async def _rebuild_page(store: Store, rows: list[dict[str, Any]], options: GraphOptions, similarity: str,
                        report: RebuildReport) -> None:
    now = utcnow()
    kept = [r for r in rows if r["embedding"] is not None]
    memories = [_memory(r, now) for r in kept]
    vectors = [[float(x) for x in r["embedding"]] for r in kept]
    stored = await stored_neighbours(store, memories, vectors, options, similarity, now, stored_already=True)
    # pairs within the page are found twice (the index has them too): link_similar keeps one edge per pair
    built = graph_rows(memories, vectors, [tuple(r["entities"]) for r in kept], [r["task_id"] for r in kept],
                       stored, options, now)
    kinds = [{"id": r["id"], "namespace": r["namespace"], "answer_kinds": list(held)}
             for r in rows if r["content"] for held in (held_kinds(r["content"]),)
             if r["answer_kinds"] is None or tuple(r["answer_kinds"]) != held]
    steps = [Step(name, {"rows": rows_}) for name, rows_ in (
        ("memory/link_entities", built.entity_rows), ("graph/link_similar", built.similar_rows),
        ("graph/link_follows", built.follow_rows), ("graph/set_answer_kinds", kinds)) if rows_]
    if not steps:
        return
    results = await store.write(steps)
    for step, result in zip(steps, results, strict=True):
        if step.name == "graph/set_answer_kinds" and result:
            report.answer_kinds_set += int(result[0]["links"])


async def construction_edges(store: Store, namespace: str) -> dict[str, int]:
    """How many ABOUT, SIMILAR_TO and FOLLOWS edges leave ``namespace``'s memories (``graph/stats``)."""
    rows = await store.read("graph/stats", namespace=namespace, now=utcnow())
    counts = {r["key"]: int(r["n"]) for r in rows if r["what"] == "edge"}
    return {kind: counts.get(kind, 0) for kind in ("ABOUT", "SIMILAR_TO", "FOLLOWS")}


def in_normal_form(name: str) -> bool:
    """Whether a stored entity name is a key already: what ``normalise_name`` gives for it, as a proper name or
    not. A stored key is lowercase, so whether it came from a proper name is no longer visible, and keying it again
    could change it ("pottery classes", the key of "Pottery Classes", would become "pottery class")."""
    return name in (normalise_name(name), normalise_name(name, proper=True))


async def merge_entity_names(store: Store, namespace: str, *, page: int = 500) -> int:
    """Merge the namespace's entities whose name is not ``in_normal_form`` into the entity of its ``normalise_name``
    (``graph/merge_entities``, one transaction per page of names); how many were merged."""
    merged, after = 0, ""
    while rows := await store.read("graph/entity_names", namespace=namespace, after=after, limit=page):
        after = rows[-1]["name"]
        pairs = [{"old": r["name"], "new": new} for r in rows if not in_normal_form(r["name"])
                 and (new := normalise_name(r["name"]))]
        if pairs:
            result = await store.write([Step("graph/merge_entities", {"namespace": namespace, "rows": pairs})])
            merged += int(result[0][0]["merged"]) if result and result[0] else 0
    return merged


def _memory(row: dict[str, Any], now: datetime) -> Memory:
    created = row["created_at"]
    return Memory(id=row["id"], namespace=row["namespace"], kind=MemoryKind(row["kind"]), content=row["content"],
                  status=MemoryStatus.ACTIVE, created_at=created.to_native() if created is not None else now)


__all__ = ["RebuildReport", "in_normal_form", "merge_entity_names", "rebuild_graph"]
