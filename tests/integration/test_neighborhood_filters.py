"""The graph view's neighbourhood (graph/neighborhood) on the real Neo4j: it hides what memory(id) hides (deleted
memories, expired working memory), and a view of $hops edges walks no longer paths than that."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from graphmem.errors import NotFoundError
from graphmem.models import MemoryDraft, MemoryKind, Relation, RelationType, utcnow
from graphmem.service import MemoryService
from graphmem.service.browse import BrowseService
from graphmem.store import Step, Store

LEAVES = 120


async def _write(service: MemoryService, namespace: str, content: str, **extra: Any) -> str:
    result = await service.write_memories([MemoryDraft(namespace=namespace, kind=extra.pop("kind", MemoryKind.SEMANTIC),
                                                       content=content, **extra)], dedupe=False)
    return result.items[0].id


async def _link(service: MemoryService, namespace: str, pairs: list[tuple[str, str]]) -> None:
    await service.relate(namespace, [Relation(source_id=a, target_id=b, type=RelationType.RELATES_TO)
                                     for a, b in pairs])


@pytest.fixture
async def graph(bare_service: MemoryService, namespace: str) -> dict[str, str]:
    """center - one - two - three (a chain); center - deleted - behind; center - expired (working, time up);
    center - hub, and the hub - LEAVES leaves."""
    service = bare_service
    ids = {name: await _write(service, namespace, f"Memory {name} of the neighbourhood test.")
           for name in ("center", "one", "two", "three", "deleted", "behind", "hub")}
    ids["expired"] = await _write(service, namespace, "Scratch: the expired step.", kind=MemoryKind.WORKING,
                                  expires_at=utcnow() + timedelta(hours=1))
    leaves = (await service.write_memories([
        MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=f"Leaf number {i} behind the hub.")
        for i in range(LEAVES)], dedupe=False)).items
    await _link(service, namespace, [(ids["center"], ids["one"]), (ids["one"], ids["two"]), (ids["two"], ids["three"]),
                                     (ids["center"], ids["deleted"]), (ids["deleted"], ids["behind"]),
                                     (ids["center"], ids["expired"]), (ids["center"], ids["hub"])])
    await _link(service, namespace, [(ids["hub"], leaf.id) for leaf in leaves])
    await service.delete_memories(namespace, [ids["deleted"]])
    return ids


async def _around(store: Store, namespace: str, memory_id: str, hops: int) -> set[str]:
    view = await BrowseService(store).neighborhood(namespace, memory_id, hops=hops)
    return {n.id for n in view.nodes if n.label == "Memory"}


async def test_deleted_and_expired_memories_are_not_in_the_neighbourhood(
        store: Store, namespace: str, graph: dict[str, str]) -> None:
    await _expire(store, namespace, graph["expired"])
    around = await _around(store, namespace, graph["center"], 3)
    assert graph["deleted"] not in around, "a deleted memory is in the neighbourhood"
    assert graph["behind"] not in around, "the neighbourhood walked through a deleted memory"
    assert graph["expired"] not in around, "an expired working memory is in the neighbourhood"
    assert {graph["one"], graph["two"], graph["three"], graph["hub"]} <= around
    for hidden in ("deleted", "expired"):
        with pytest.raises(NotFoundError):
            await BrowseService(store).neighborhood(namespace, graph[hidden], hops=1)


async def test_hops_bound_the_view(store: Store, namespace: str, graph: dict[str, str]) -> None:
    one = await _around(store, namespace, graph["center"], 1)
    two = await _around(store, namespace, graph["center"], 2)
    assert graph["one"] in one
    assert graph["two"] not in one
    assert graph["two"] in two
    assert graph["three"] not in two
    assert len(one) == 4  # center, one, expired (its time not up yet), hub: no leaf


async def test_a_one_hop_view_does_not_walk_the_longer_paths(
        store: Store, namespace: str, graph: dict[str, str]) -> None:
    """PROFILE: the rows the plan's operators produce. With the bound after the pattern (``[*1..3]`` then
    ``length(p) <= $hops``) a 1-hop view next to a hub walked every leaf behind it (LEAVES paths and more)."""
    query = store.cypher("graph/neighborhood")
    async with store.driver.session(database=store.database) as session:
        result = await session.run("PROFILE " + query, {"id": graph["center"], "namespace": namespace, "hops": 1,
                                                        "types": None, "limit": 200})
        summary = await result.consume()
    assert summary.profile is not None
    expanded = _rows(summary.profile, "VarLengthExpand")
    assert expanded < LEAVES / 4, f"a 1-hop view produced {expanded} path rows: it walked past one hop"


def _rows(plan: dict[str, Any], operator: str) -> int:
    """Rows produced by the plan's operators whose type starts with ``operator``."""
    own = int(plan.get("rows", 0)) if str(plan.get("operatorType", "")).startswith(operator) else 0
    return own + sum(_rows(child, operator) for child in plan.get("children", []))


async def _expire(store: Store, namespace: str, memory_id: str) -> None:
    """Let the working memory's time be up (a sleep would be slower and flakier)."""
    await store.write([Step("test/expire_memory", {"namespace": namespace, "id": memory_id})])


async def test_a_view_cut_at_its_limit_says_so(store: Store, namespace: str, graph: dict[str, str]) -> None:
    browse = BrowseService(store)
    whole = await browse.neighborhood(namespace, graph["center"], hops=1)
    assert not whole.truncated  # a handful of edges
    behind_the_hub = await browse.neighborhood(namespace, graph["center"], hops=2, limit=LEAVES // 2)
    assert behind_the_hub.truncated  # the hub's leaves are more paths than the limit
    assert len([n for n in behind_the_hub.nodes if n.label == "Memory"]) < LEAVES  # not every leaf: cut
