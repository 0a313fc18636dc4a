"""A namespace as a networkx ``MultiDiGraph``: memories, entities, tasks and turns as nodes with their properties,
typed edges with their weights, read page by page (``cypher/analysis/*``) so a large namespace streams.

Nodes are keyed ``"<Label>:<id>"`` (an entity by its name), so graphs exported from the same namespace, a
neighbourhood or a search's subgraph line up. Memories are verified as every read verifies them
(``security.integrity``): one that fails is left out (or, in flag mode, kept with its ``integrity`` verdict), and so
are the edges that touch it; the graph's ``memories_unverified`` counts those left out, ``memories_flagged`` those
kept with a verdict.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import networkx as nx

from graphmem.errors import ValidationError
from graphmem.models import MemoryStatus, check_namespace
from graphmem.store import Store
from graphmem.store.records import native

DEFAULT_STATUSES = (MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED)
"""What an export holds unless told otherwise: the memory's history too, not the deleted or quarantined."""
PAGE = 1000
ENTITY_FIELDS = ("namespace", "name", "kind", "created_at")
"""An entity's properties (docs/graph.md), as ``analysis/entity_page`` returns them."""


def node_key(label: str, ident: str) -> str:
    return f"{label}:{ident}"


async def export_namespace(
    store: Store, namespace: str, *, statuses: Sequence[MemoryStatus] = DEFAULT_STATUSES, page_size: int = PAGE,
    progress: Callable[[int], None] | None = None,
) -> nx.MultiDiGraph[str]:
    """The namespace's graph; ``progress`` is called with the number of nodes each page added (a page of tasks adds
    their turns too), so its calls sum to the node count. A namespace name
    that is not one is ``ValidationError``."""
    try:
        check_namespace(namespace)
    except ValueError as exc:
        raise ValidationError(str(exc), field="namespace") from None
    wanted = [s.value for s in statuses]
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph(namespace=namespace, statuses=wanted)
    edges: list[tuple[str, str, dict[str, Any]]] = []
    after = ""
    unverified = flagged = 0
    while True:
        rows = await store.read("analysis/memory_page", namespace=namespace, statuses=wanted, after=after,
                                limit=page_size)
        if not rows:
            break
        after = rows[-1]["memory"]["id"]
        kept = {m["id"]: m for m in store.integrity.checked(r["memory"] for r in rows)}
        unverified += len(rows) - len(kept)
        flagged += sum(1 for m in kept.values() if "integrity" in m)
        for row in rows:
            data = kept.get(row["memory"]["id"])
            if data is None:
                continue
            source = node_key("Memory", data["id"])
            graph.add_node(source, label="Memory", **_memory_attributes(data))
            for edge in row["edges"]:
                if edge["target"] is None:  # a node of no kind the export knows (no id, no name)
                    continue
                attrs = {"weight": float(edge["weight"])}
                if edge.get("gap_s") is not None:
                    attrs["gap_s"] = float(edge["gap_s"])
                edges.append((source, node_key(edge["label"], edge["target"]), {"type": edge["type"], **attrs}))
        _progress(progress, len(kept))
    after = ""
    while rows := await store.read("analysis/entity_page", namespace=namespace, statuses=wanted, after=after,
                                   limit=page_size):
        after = rows[-1]["name"]
        for row in rows:
            entity = _attributes({k: row.get(k) for k in ENTITY_FIELDS})
            graph.add_node(node_key("Entity", row["name"]), label="Entity", **entity, degree_about=int(row["degree"]))
        _progress(progress, len(rows))
    after = ""
    while rows := await store.read("analysis/task_page", namespace=namespace, after=after, limit=page_size):
        after = rows[-1]["task"]["id"]
        for row in rows:
            task = node_key("Task", row["task"]["id"])
            graph.add_node(task, label="Task", **_attributes(row["task"]))
            for turn in row["turns"]:
                key = node_key("Turn", turn["id"])
                graph.add_node(key, label="Turn", **_attributes(turn))
                edges.append((task, key, {"type": "HAS_TURN", "weight": 1.0}))
        _progress(progress, len(rows) + sum(len(row["turns"]) for row in rows))
    dropped = 0
    for source, target, attrs in edges:
        if source in graph and target in graph:
            graph.add_edge(source, target, key=attrs["type"], **attrs)
        else:  # its other end is not exported (another status, or it failed verification)
            dropped += 1
    graph.graph["edges_dropped"] = dropped
    graph.graph["memories_unverified"] = unverified
    graph.graph["memories_flagged"] = flagged
    return graph


def _attributes(data: dict[str, Any]) -> dict[str, Any]:
    """Node attributes: the properties read, as Python values (datetimes, lists), without the signature."""
    return {k: native(v) for k, v in data.items() if v is not None and k not in {"signature", "signature_key"}}


def _memory_attributes(data: dict[str, Any]) -> dict[str, Any]:
    """A memory's attributes: its metadata as a map (``metadata``, left out when empty) instead of the stored JSON
    text, ``summary`` always (whether it is a task summary)."""
    attrs = _attributes({k: v for k, v in data.items() if k != "metadata_json"})
    metadata = json.loads(data["metadata_json"]) if data.get("metadata_json") else {}
    if metadata:
        attrs["metadata"] = metadata
    attrs["summary"] = bool(data.get("summary"))
    return attrs


def _progress(progress: Callable[[int], None] | None, n: int) -> None:
    if progress is not None and n:
        progress(n)


__all__ = ["DEFAULT_STATUSES", "ENTITY_FIELDS", "export_namespace", "node_key"]
