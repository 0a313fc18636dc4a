"""The answer-type term through the real search (Neo4j, the embedder, both search paths): a question that asks
for places lifts the turn naming a place over the turns that only echo its words. A write stores each memory's
answer kinds, an update of its content replaces them, and rebuild-graph stores them for a memory written before."""

from __future__ import annotations

import pytest

from graphmem.graph.construct import graph_options
from graphmem.graph.rebuild import rebuild_graph
from graphmem.models import MemoryDraft, MemoryKind
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.types import SearchResult
from graphmem.service import MemoryService
from graphmem.store import Step, Store

TURNS = (
    "John: I have been so busy with work lately, it has been exhausting.",
    "Maria: John, your new job sounds exciting, tell me everything!",
    "John: Last week I was in Boston with friends.",
    "Maria: My cat knocked over the plant again this morning.",
    "John: I have been dreaming of travelling the world and visiting famous places.",
    "John: I have been wanting to travel more and see new places this year.",
)


@pytest.mark.parametrize("one_statement", [True, False], ids=["statement", "stepwise"])
async def test_a_question_for_places_lifts_the_turn_that_names_one(service: MemoryService, namespace: str,
                                                                   one_statement: bool) -> None:
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=t) for t in TURNS]
    ids = [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]
    boston = ids[2]
    options = SearchOptions(namespaces=(namespace,), k=5)
    query = "Which cities has John been to?"

    async def search(weights: FormulaWeights) -> list[tuple[str, bool]]:
        retrieval = RetrievalService(service.store, service.embedder, service.settings, weights=weights,
                                     one_statement=one_statement)
        return [(r.memory.id, r.parts.answer) for r in (await retrieval.search(query, options)).results]

    with_term = await search(FormulaWeights())
    without = await search(FormulaWeights(answer=0.0))
    assert [m for m, answer in with_term if answer] == [boston]  # the only turn holding a place the query lacks
    assert not any(answer for _, answer in without)
    assert with_term[0][0] == boston
    # without it, the turns about travelling in general (closer to the question's wording) come first
    assert [m for m, _ in without].index(boston) > 0
    # a question that asks no kind of answer is ranked as before: the term adds nothing
    plain = "What does John say about travelling with friends?"
    orders: list[tuple[SearchResult, ...]] = []
    for weights in (FormulaWeights(), FormulaWeights(answer=0.0)):
        retrieval = RetrievalService(service.store, service.embedder, service.settings, weights=weights,
                                     one_statement=one_statement)
        results = (await retrieval.search(plain, options)).results
        assert not any(r.parts.answer for r in results)
        orders.append(results)
    assert [r.memory.id for r in orders[0]] == [r.memory.id for r in orders[1]]
    # each search has its own now: the recency term moves in the sixth decimal
    assert [r.score for r in orders[0]] == pytest.approx([r.score for r in orders[1]], abs=1e-4)


async def stored_kinds(store: Store, namespace: str) -> dict[str, list[str] | None]:
    return {r["id"]: r["answer_kinds"] for r in await store.read("test/answer_kinds", namespace=namespace)}


@pytest.mark.parametrize("one_statement", [True, False], ids=["statement", "stepwise"])
async def test_kinds_are_stored_on_write_and_update_and_rebuilt_for_older_memories(
        service: MemoryService, store: Store, namespace: str, one_statement: bool) -> None:
    drafts = [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=t) for t in TURNS]
    ids = [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]
    boston, cat = ids[2], ids[3]
    kinds = await stored_kinds(store, namespace)
    assert kinds[boston] == ["place:boston"]
    assert kinds[cat] == []  # computed: holds none (not null, which means "written before")
    await service.update_memory(namespace, cat, content="Maria: My two cats knocked over the plant in Denver.")
    assert (await stored_kinds(store, namespace))[cat] == ["number:", "place:denver"]

    async def answering() -> set[str]:  # a new service each time: direct writes below bump no cache version
        retrieval = RetrievalService(service.store, service.embedder, service.settings, one_statement=one_statement)
        found = await retrieval.search("Which cities has John been to?", SearchOptions(namespaces=(namespace,), k=10))
        assert len(found.results) == len(TURNS)
        return {r.memory.id for r in found.results if r.parts.answer}

    assert await answering() == {boston, cat}
    # the search reads the stored kinds, not the content: stored as none, Boston's turn answers nothing
    await store.write([Step("graph/set_answer_kinds", {"rows": [{"namespace": namespace, "id": boston,
                                                                 "answer_kinds": []}]})])
    assert await answering() == {cat}
    # a memory written before the property: the search computes its kinds from the content
    await store.write([Step("test/drop_answer_kinds", {"namespace": namespace, "id": boston})])
    assert (await stored_kinds(store, namespace))[boston] is None
    assert await answering() == {boston, cat}

    report = await rebuild_graph(store, graph_options(service.settings), namespaces=[namespace])
    assert report.answer_kinds_set == 1
    assert (await stored_kinds(store, namespace))[boston] == ["place:boston"]
    again = await rebuild_graph(store, graph_options(service.settings), namespaces=[namespace])
    assert again.answer_kinds_set == 0
