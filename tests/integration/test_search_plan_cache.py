"""One cached plan serves every search (real Neo4j): ``search_params.VARYING``, ``descend.VARYING`` and
``RetrievalService.prepare``.

``CALL db.clearQueryCaches()`` says how many plans it cleared: the plans the statements run since the last clear
left. Neo4j plans a statement again for each new size bucket of a top-level string or list parameter (first test,
a statement of the test's own), which for the 300-line search statement cost 1-2 s a question on a fresh server."""

from __future__ import annotations

import re
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import StoreUnavailableError
from graphmem.models import MemoryDraft, MemoryKind, Task
from graphmem.retrieval import RetrievalService, SearchOptions
from graphmem.retrieval.types import Channel, ExpansionMode
from graphmem.service import MemoryService
from graphmem.store import Store
from tests.integration.api_support import open_api
from tests.integration.test_retrieval import write

SIZES = "RETURN size($xs) AS n"  # test-only: a statement whose one list parameter varies in size


async def cleared(store: Store) -> int:
    """The plans cached since the last clear (and clear them)."""
    async with store.driver.session(database=store.database) as session:
        result = await session.run("CALL db.clearQueryCaches()")
        (row,) = await result.data()
    found = re.search(r"\d+", row["value"])  # "... cleared of 3 queries." or "Query cache already empty."
    return int(found.group()) if found else 0


async def test_neo4j_plans_again_for_each_size_bucket(store: Store) -> None:
    """The reason, shown: the same statement with lists of 1, 5 and 50 items is planned three times."""
    await cleared(store)
    async with store.driver.session(database=store.database) as session:
        for xs in ([1], [1] * 5, [1] * 7, [1] * 50):
            await (await session.run(SIZES, xs=xs)).consume()
    assert await cleared(store) == 3


async def test_questions_of_every_shape_share_the_prepared_plan(service: MemoryService, store: Store,
                                                                namespace: str) -> None:
    """Per question and options: clear, prepare, search; one plan means the search reused the prepared one.
    (Cleared each time: at a statement's 11th run Neo4j compiles its plan's expressions, a second cache entry.)"""
    await write(service, namespace, "Melanie camped at the beach with her kids in July 2023.",
                "Caroline went to an LGBTQ support group last May.", "Jon flew to Paris for a conference.")
    retrieval = RetrievalService(store, service.embedder, service.settings)
    await cleared(store)
    await retrieval.prepare()
    assert await cleared(store) == 2, "prepare planned other than the search and descent statements"
    questions = [
        "camping",
        "Where has Melanie camped?",
        "What did Caroline say about the LGBTQ support group she went to last May with her friends, her family and "
        "her mentors, and about the adoption agencies she researched in 2023?",
        "When did Jon go to Paris two weeks before the conference?",
    ]
    options = [SearchOptions(namespaces=(namespace,), k=3),
               SearchOptions(namespaces=(namespace, "shared"), k=10, min_trust=0.2),
               SearchOptions(namespaces=(namespace,), k=5, channels=(Channel.VECTOR,))]
    plans: dict[tuple[str, int], int] = {}
    found = 0
    for question in questions:
        for n, opts in enumerate(options):
            await cleared(store)
            await retrieval.prepare()
            found += len((await retrieval.search(question, opts)).results)
            plans[(question[:24], n)] = await cleared(store)
    assert found > 0
    assert set(plans.values()) == {2}, f"searches that made a plan of their own: {plans}"


async def test_descents_from_summaries_share_the_prepared_plan(service: MemoryService, store: Store,
                                                               namespace: str) -> None:
    """A search that finds a task summary runs ``retrieval/descend`` too: with leads, candidates to exclude and
    filters of every size, still the two prepared plans."""
    for n in range(3):
        task = await service.tasks.start(Task(namespace=namespace, title=f"session {n}"))
        for line in ("Melanie: We booked the flights to Portugal!", "Caroline: Which airline did you pick?",
                     f"Melanie: The cheap one, with {n + 1} stopovers."):
            await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=line,
                                                      task_id=task.id)])
        await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, summary_of=task.id,
                                                  content=f"Melanie told Caroline about her trip to Portugal ({n}).")])
    retrieval = RetrievalService(store, service.embedder, service.settings)
    options = [SearchOptions(namespaces=(namespace,), k=2, seed_k=2, hops=0),
               SearchOptions(namespaces=(namespace, "shared"), k=10, min_trust=0.2, kinds=(MemoryKind.EPISODIC,)),
               SearchOptions(namespaces=(namespace,), k=5, created_after=datetime(2020, 1, 1, tzinfo=UTC))]
    plans: list[int] = []
    descended = 0
    for question in ("Portugal", "What did Melanie say about her trip to Portugal and the flights she booked?"):
        for opts in options:
            await cleared(store)
            await retrieval.prepare()
            found = await retrieval.search(question, opts)
            descended += sum(1 for r in found.results if r.path[:1] and r.path[0].type == "FROM_TASK")
            plans.append(await cleared(store))
    assert descended > 0, "no search descended from a summary"
    assert set(plans) == {2}, f"searches that made a plan of their own: {plans}"


@pytest.mark.parametrize("mode", [{"expansion_mode": ExpansionMode.PPR}, {"hops": 2}], ids=["ppr", "two-hops"])
async def test_stepwise_searches_of_every_shape_share_plans(service: MemoryService, store: Store, namespace: str,
                                                            mode: dict[str, Any],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The stepwise path (personalised PageRank, more than one hop) runs a statement per stage: seeds per channel,
    each walk step, the candidates. A search of a new shape after a reference search adds no plan: as many plans
    as distinct statements the two ran (``vary.in_map``)."""
    await write(service, namespace, "Melanie camped at the beach with her kids in July 2023.",
                "Caroline went to an LGBTQ support group last May.", "Jon flew to Paris for a conference.",
                "Melanie: the kids loved the camping trip, we roasted marshmallows.")
    retrieval = RetrievalService(store, service.embedder, service.settings)
    ran: set[str] = set()
    read, read_row = store.read, store.read_row

    def spied(name: str, /, **params: Any) -> Awaitable[list[dict[str, Any]]]:
        ran.add(name)
        return read(name, **params)

    def spied_row(name: str, /, **params: Any) -> Awaitable[dict[str, Any]]:
        ran.add(name)
        return read_row(name, **params)

    monkeypatch.setattr(store, "read", spied)
    monkeypatch.setattr(store, "read_row", spied_row)
    channels = (Channel.VECTOR, Channel.FULLTEXT, Channel.RECENCY, Channel.POPULARITY)
    reference = SearchOptions(namespaces=(namespace,), k=5, channels=channels, **mode)
    shapes = [("camping", reference),
              ("What did Caroline say about the LGBTQ support group she went to last May with her friends, her "
               "family and her mentors, and about the adoption agencies she researched in 2023?", reference),
              ("Where has Melanie camped?", reference.model_copy(update={
                  "namespaces": (namespace, "shared", "other"), "kinds": (MemoryKind.EPISODIC,), "min_trust": 0.2,
                  "created_after": datetime(2020, 1, 1, tzinfo=UTC), "k": 10, "seed_k": 3}))]
    extra: dict[str, tuple[int, int]] = {}
    for question, options in shapes:
        await cleared(store)
        ran.clear()
        await retrieval.search("When did Jon fly to Paris?", reference)
        await retrieval.search(question, options)
        plans = await cleared(store)
        extra[question[:24]] = (plans, len(ran))
    assert all(plans == statements for plans, statements in extra.values()), f"(plans, statements): {extra}"
    assert all(statements >= 4 for _, statements in extra.values()), extra


SEARCH = 'query($ns: String!) { search(query: "kettle", namespaces: [$ns]) { results { memory { id } } } }'


async def test_the_app_plans_the_search_at_start_up(migrated: Settings, embedder: Embedder,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[RetrievalService] = []
    prepare = RetrievalService.prepare

    async def counted(self: RetrievalService) -> None:
        calls.append(self)
        await prepare(self)

    monkeypatch.setattr(RetrievalService, "prepare", counted)
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False) as api:
        assert len(calls) == 1
        assert calls[0] is api.app.state.graphmem.retrieval
        assert (await api.data(api.tokens.a, SEARCH, {"ns": api.ns_a}))["search"]["results"] == []


async def test_the_app_serves_when_planning_fails(migrated: Settings, embedder: Embedder,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    async def refused(self: RetrievalService) -> None:
        raise StoreUnavailableError("retrieval/search: Neo4j is unavailable (a test)")

    monkeypatch.setattr(RetrievalService, "prepare", refused)
    async with open_api(migrated, embedder, seed=False, llm_base_url=None, reflection_worker=False) as api:
        assert (await api.data(api.tokens.a, SEARCH, {"ns": api.ns_a}))["search"]["results"] == []
