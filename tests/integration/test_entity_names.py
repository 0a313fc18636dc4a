"""Entity names in the real Neo4j: an entity a caller names and the same one the content extractor finds are one
node (the speaker "Caroline" an import names, the "caroline" of another speaker's "Caroline's"), and
``rebuild_graph`` merges the entities stored before names were normalised into the normal one."""

from __future__ import annotations

from typing import Any

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.graph.construct import graph_options
from graphmem.graph.rebuild import merge_entity_names, rebuild_graph
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.service import MemoryService
from graphmem.store import Step, Store


def settings_with_entities(settings: Settings) -> Settings:
    return settings.model_copy(update={"graph_follows": False, "graph_entities": True, "graph_similar_k": 0})


async def links(store: Store, namespace: str) -> dict[str, tuple[str, list[str]]]:
    rows = await store.read("test/entity_links", namespace=namespace)
    return {r["name"]: (r["kind"], r["memories"]) for r in rows}


async def write(service: MemoryService, namespace: str, content: str, **kw: Any) -> str:
    draft = MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=content, **kw)
    return (await service.write_memories([draft], dedupe=False)).items[0].id


async def test_a_named_entity_and_the_extracted_one_are_one_node(store: Store, embedder: Embedder,
                                                                 migrated: Settings, namespace: str) -> None:
    service = MemoryService(store, embedder, settings_with_entities(migrated))
    said = await write(service, namespace, "Caroline: I finally went hiking up the ridge trail.",
                       entities=("Caroline",))
    told = await write(service, namespace, "Melanie: I loved Caroline's painting of the lake at the art show.")
    named = await write(service, namespace, "Melanie: See you at the show!", entities=("Caroline's ", "Melanie"))
    found = await links(store, namespace)
    assert not {"Caroline", "Caroline's ", "Melanie"} & set(found), found  # only keys
    kind, memories = found["caroline"]
    assert sorted(memories) == sorted([said, told, named])  # one node: named, extracted, named with a possessive
    assert kind == "person"  # the kind the extractor found, though a caller named it first (kind unknown)
    assert named in found["melanie"][1]


async def test_rebuild_merges_entities_stored_under_unnormalised_names(store: Store, embedder: Embedder,
                                                                     migrated: Settings, namespace: str) -> None:
    service = MemoryService(store, embedder, settings_with_entities(migrated))
    told = await write(service, namespace, "Melanie: I loved Caroline's painting of the lake at the art show.")
    plain = MemoryService(store, embedder, migrated.model_copy(update={"graph_entities": False}))
    old = await write(plain, namespace, "Caroline: I finally went hiking up the ridge trail.")
    other = await write(plain, namespace, "The pottery classes start on Monday.")
    await store.write([Step("test/legacy_entity", {"namespace": namespace, "id": old, "name": "Caroline"}),
                       Step("test/legacy_entity", {"namespace": namespace, "id": other, "name": "Pottery Classes"})])
    before = await links(store, namespace)
    assert before["Caroline"][1] == [old]
    assert told in before["caroline"][1]

    report = await rebuild_graph(store, graph_options(settings_with_entities(migrated)), namespaces=[namespace])
    assert report.entities_merged == 2
    after = await links(store, namespace)
    assert "Caroline" not in after
    assert "Pottery Classes" not in after
    assert sorted(after["caroline"][1]) == sorted([old, told])
    assert after["caroline"][0] == "person"  # the extracted node's kind wins over the legacy "unknown"
    assert other in after["pottery classes"][1]  # a capitalised last word: a proper name, not singularised
    assert await merge_entity_names(store, namespace) == 0  # nothing left to merge: idempotent
    assert await links(store, namespace) == after
