"""Retrieval on small hand-built graphs in the real Neo4j, with the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from graphmem.errors import ValidationError
from graphmem.models import MemoryDraft, MemoryKind, MemoryStatus, Relation, RelationType, utcnow
from graphmem.retrieval import Channel, RerankMode, RetrievalService, SearchOptions
from graphmem.retrieval.access import AccessRecorder
from graphmem.retrieval.vary import FILTERS, in_map
from graphmem.service import MemoryService
from graphmem.store import Step, Store


@pytest.fixture
async def retrieval(service: MemoryService) -> AsyncIterator[RetrievalService]:
    recorder = AccessRecorder(service.store, flush_every_s=3600)
    yield RetrievalService(service.store, service.embedder, service.settings, versions=service.versions,
                           recorder=recorder)
    await recorder.stop()


async def write(service: MemoryService, ns: str, *contents: str, **kw: object) -> list[str]:
    drafts = [MemoryDraft(namespace=ns, kind=MemoryKind.SEMANTIC, content=c, **kw) for c in contents]  # type: ignore[arg-type]
    return [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]


def ids(response: object) -> list[str]:
    return [r.memory.id for r in response.results]  # type: ignore[attr-defined]


async def test_multi_hop_answer_only_reachable_through_an_edge(service: MemoryService, retrieval: RetrievalService,
                                                               namespace: str) -> None:
    falcon, orion, noise = await write(
        service, namespace,
        "Project Falcon stores all of its customer records in the Orion cluster.",
        "Orion runs in the Frankfurt data centre of Hetzner.",
        "The team lunch is on Thursdays at noon.",
    )
    await service.relate(namespace, [Relation(source_id=falcon, target_id=orion, type=RelationType.PART_OF)])
    base = {"namespaces": (namespace,), "k": 3, "channels": (Channel.VECTOR,), "seed_k": 1}
    q = "Which customer records does Project Falcon keep?"
    flat = await retrieval.search(q, SearchOptions(**base, hops=0))  # type: ignore[arg-type]
    assert ids(flat) == [falcon]
    deep = await retrieval.search(q, SearchOptions(**base, hops=1))  # type: ignore[arg-type]
    assert ids(deep)[:2] == [falcon, orion]
    reached = deep.results[1]
    assert reached.seed_id == falcon
    assert [(p.source_id, p.type, p.target_id) for p in reached.path] == [(falcon, "PART_OF", orion)]
    assert reached.parts.expansion > 0
    assert reached.parts.similarity > 0
    assert noise not in ids(deep)


async def test_recency_wins_between_equal_matches(service: MemoryService, retrieval: RetrievalService,
                                                  namespace: str) -> None:
    now = utcnow()
    (old,) = await write(service, namespace, "The user's preferred text editor is Vim.",
                         created_at=now - timedelta(days=400))
    (new,) = await write(service, namespace, "The user's preferred text editor is Emacs.", created_at=now)
    response = await retrieval.search("Which text editor does the user prefer?",
                                      SearchOptions(namespaces=(namespace,), k=2))
    assert ids(response) == [new, old]
    assert response.results[0].parts.recency > 0.99 > 0.01 > response.results[1].parts.recency
    assert response.rerank is RerankMode.FORMULA


async def test_superseded_fact_hidden_unless_asked(service: MemoryService, store: Store,
                                                   retrieval: RetrievalService, namespace: str) -> None:
    t0 = utcnow() - timedelta(days=10)
    (paris,) = await write(service, namespace, "Dave lives in Paris.", created_at=t0)
    (berlin,) = await write(service, namespace, "Dave lives in Berlin.")
    await store.write([Step("test/supersede", {"old": paris, "new": berlin, "at": utcnow() - timedelta(days=1)})])
    q = "Where does Dave live?"
    assert ids(await retrieval.search(q, SearchOptions(namespaces=(namespace,)))) == [berlin]
    both = await retrieval.search(q, SearchOptions(namespaces=(namespace,),
                                                   statuses=(MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED)))
    assert set(ids(both)) == {paris, berlin}
    then = await retrieval.search(q, SearchOptions(namespaces=(namespace,), as_of=utcnow() - timedelta(days=5)))
    assert ids(then) == [paris]  # what was true five days ago (Berlin was not written yet)
    naive = (utcnow() - timedelta(days=5)).replace(tzinfo=None)  # a date without a zone is UTC, as a write reads it
    assert ids(await retrieval.search(q, SearchOptions(namespaces=(namespace,), as_of=naive))) == [paris]
    after = await retrieval.search(q, SearchOptions(namespaces=(namespace,), created_after=naive))
    assert ids(after) == [berlin]


async def test_namespaces_do_not_leak(service: MemoryService, store: Store, retrieval: RetrievalService,
                                      namespace: str) -> None:
    other = namespace + "-b"
    try:
        (mine,) = await write(service, namespace, "Erin's locker code is 4411.")
        (theirs,) = await write(service, other, "Erin's locker code is 9876.")
        await store.write([Step("test/link_any", {"a": mine, "b": theirs})])  # even a stray edge must not leak
        for hops in (0, 2):
            response = await retrieval.search("What is Erin's locker code?",
                                              SearchOptions(namespaces=(namespace,), hops=hops))
            assert ids(response) == [mine]
        both = await retrieval.search("What is Erin's locker code?", SearchOptions(namespaces=(namespace, other)))
        assert set(ids(both)) == {mine, theirs}
    finally:
        await store.wipe_namespace(other)


async def test_access_counts_cache_and_fallback(service: MemoryService, retrieval: RetrievalService,
                                                namespace: str) -> None:
    (a,) = await write(service, namespace, "Fran keeps bees on her roof.")
    opts = SearchOptions(namespaces=(namespace,), k=1, rerank=RerankMode.LLM)
    first = await retrieval.search("Who keeps bees?", opts)
    assert first.rerank is RerankMode.FORMULA
    assert first.fallback_reason == "no LLM configured"
    assert not first.cached
    second = await retrieval.search("Who keeps bees?", opts)
    assert second.cached
    assert ids(second) == [a]
    assert retrieval.recorder is not None
    assert await retrieval.recorder.flush() == 1
    assert (await service.get_memory(namespace, a)).access_count == 1  # a cache hit is the same question again
    (b,) = await write(service, namespace, "Fran sells honey at the market.")  # a write drops cached searches
    third = await retrieval.search("Who keeps bees?", opts)
    assert not third.cached
    popular = await retrieval.search("honey", SearchOptions(namespaces=(namespace,), channels=(Channel.POPULARITY,),
                                                            k=2, rerank=RerankMode.NONE, hops=0))
    assert ids(popular) == [a]  # only the accessed memory is in the popularity channel
    assert b not in ids(popular)


async def test_a_query_asked_again_after_a_write_is_not_embedded_again(
        service: MemoryService, retrieval: RetrievalService, namespace: str) -> None:
    calls: list[str] = []
    embed_query = retrieval.embedder.embed_query

    def counting(text: str) -> list[float]:
        calls.append(text)
        return embed_query(text)

    retrieval.embedder = type("Counting", (), {"embed_query": staticmethod(counting)})()
    opts = SearchOptions(namespaces=(namespace,), k=2)
    (a,) = await write(service, namespace, "Gwen repairs clocks.")
    assert ids(await retrieval.search("Who repairs clocks?", opts)) == [a]
    (b,) = await write(service, namespace, "Gwen also repairs old clocks for the museum.")  # empties the cache
    again = await retrieval.search("Who repairs clocks?", opts)
    assert not again.cached
    assert set(ids(again)) == {a, b}  # searched again, with the kept vector
    assert calls == ["Who repairs clocks?"]
    await retrieval.search("Who repairs watches?", opts)
    assert calls == ["Who repairs clocks?", "Who repairs watches?"]


async def test_bad_queries_are_refused(retrieval: RetrievalService, namespace: str) -> None:
    with pytest.raises(ValidationError, match="empty query"):
        await retrieval.search("   ", SearchOptions(namespaces=(namespace,)))
    with pytest.raises(ValidationError, match="namespace"):
        await retrieval.search("x", SearchOptions(namespaces=("Bad NS",)))
    with pytest.raises(ValueError, match="k"):
        SearchOptions(namespaces=(namespace,), k=0)


class CountingStore(Store):
    """The real store, counting the search statements it runs and the index rows each asked for."""

    asked: list[int]

    async def read_row(self, name: str, /, **params: Any) -> dict[str, Any]:
        if name == "retrieval/search":
            self.asked.append(params["oversample"])
        return await super().read_row(name, **params)


async def test_small_namespace_among_a_large_one_still_gets_vector_seeds(
        service: MemoryService, store: Store, retrieval: RetrievalService, namespace: str) -> None:
    crowd = namespace + "-crowd"
    try:
        await write(service, crowd, *[f"Erin's locker code is {1000 + i}." for i in range(150)])
        (mine,) = await write(service, namespace, "Erin's locker code is 4411.")
        response = await retrieval.search("What is Erin's locker code?", SearchOptions(
            namespaces=(namespace,), channels=(Channel.VECTOR,), seed_k=5, hops=0))
        assert ids(response) == [mine]  # the first 20 index hits are all the crowd's: it had to ask for more
    finally:
        await store.wipe_namespace(crowd)


async def test_the_index_rows_asked_follow_what_the_filters_kept(service: MemoryService, store: Store,
                                                                 namespace: str) -> None:
    crowd = namespace + "-crowd"
    counting = CountingStore(store.driver, store.settings)
    counting.asked = []
    retrieval = RetrievalService(counting, service.embedder, service.settings)
    options = SearchOptions(namespaces=(namespace,), channels=(Channel.VECTOR,), seed_k=5, hops=0)
    try:
        await write(service, crowd, *[f"Erin's locker code is {1000 + i}." for i in range(150)])
        (mine,) = await write(service, namespace, "Erin's locker code is 4411.")
        assert ids(await retrieval.search("What is Erin's locker code?", options)) == [mine]
        assert counting.asked[0] == 20  # 4 x seed_k while nothing is known; kept: 1 of 20 at best
        counting.asked.clear()
        assert ids(await retrieval.search("Erin's locker code, please", options)) == [mine]
        assert len(counting.asked) == 1  # learned: enough rows at the first ask
        assert counting.asked[0] >= 200  # seed_k * 2 / (1 / 20) at least
        counting.asked.clear()
        alone = SearchOptions(namespaces=(namespace, crowd), channels=(Channel.VECTOR,), seed_k=5, hops=0)
        await retrieval.search("Erin's locker code", alone)  # every row passes: 20 asked, 20 kept
        await retrieval.search("Erin's locker", alone)
        assert counting.asked == [20, 10]  # seed_k * 2 once the share kept is known
    finally:
        await store.wipe_namespace(crowd)


@pytest.mark.parametrize("one_statement", [True, False], ids=["one-statement", "stepwise"])
async def test_small_namespace_among_a_large_one_still_gets_fulltext_seeds(
        service: MemoryService, store: Store, namespace: str, one_statement: bool) -> None:
    crowd = namespace + "-crowd"
    retrieval = RetrievalService(store, service.embedder, service.settings, one_statement=one_statement)
    try:
        crowding = [f"Quillon badge {i}: the quillon badge, badge {i}, opens the dock." for i in range(150)]
        await write(service, crowd, *crowding)  # more of the query's words than mine: they outscore it
        (mine,) = await write(service, namespace, "My quillon badge opens the east stairwell.")
        response = await retrieval.search("quillon badge", SearchOptions(
            namespaces=(namespace,), channels=(Channel.FULLTEXT,), seed_k=5, hops=0))
        assert ids(response) == [mine]  # the first 20 BM25 hits are all the crowd's: it had to ask for more
        assert response.results[0].parts.ranks == {"fulltext": 1}
    finally:
        await store.wipe_namespace(crowd)


def plan_operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """(operator, details) of every operator of an EXPLAIN plan, depth first."""
    here = [(str(plan.get("operatorType", "")).split("@")[0], str(plan.get("args", {}).get("Details", "")))]
    return here + [op for child in plan.get("children", []) for op in plan_operators(child)]


async def test_recency_and_popularity_seeds_merge_namespaces_newest_and_most_used_first(
        service: MemoryService, store: Store, retrieval: RetrievalService, namespace: str) -> None:
    other = namespace + "-b"
    now = utcnow()
    try:
        (a_old,) = await write(service, namespace, "Gil waters the ferns.", created_at=now - timedelta(days=30))
        (a_new,) = await write(service, namespace, "Gil repots the cactus.", created_at=now - timedelta(days=1))
        (b_mid,) = await write(service, other, "Hana tunes the piano.", created_at=now - timedelta(days=10))
        await store.write([Step("retrieval/touch", {"rows": [
            {"namespace": namespace, "id": a_old, "n": 5, "at": now}, {"namespace": other, "id": b_mid, "n": 7,
                                                                       "at": now},
            {"namespace": namespace, "id": a_new, "n": 5, "at": now - timedelta(hours=1)}]})])
        flat = {"namespaces": (namespace, other), "k": 3, "hops": 0, "rerank": RerankMode.NONE}
        recent = await retrieval.search("anything", SearchOptions(channels=(Channel.RECENCY,), **flat))  # type: ignore[arg-type]
        assert ids(recent) == [a_new, b_mid, a_old]
        used = await retrieval.search("anything", SearchOptions(channels=(Channel.POPULARITY,), **flat))  # type: ignore[arg-type]
        assert ids(used) == [b_mid, a_old, a_new]  # 7 accesses, then 5 (most recently accessed first)
        one = {**flat, "k": 1, "seed_k": 1, "namespaces": (namespace,)}
        assert ids(await retrieval.search("x", SearchOptions(channels=(Channel.RECENCY,), **one))) == [a_new]  # type: ignore[arg-type]
        older = await retrieval.search("x", SearchOptions(channels=(Channel.RECENCY,), **flat,  # type: ignore[arg-type]
                                                          created_before=now - timedelta(days=5)))
        assert ids(older) == [b_mid, a_old]
    finally:
        await store.wipe_namespace(other)


@pytest.mark.parametrize(("name", "index", "stop"), [
    ("retrieval/seed_recency", "namespace, created_at", "Limit"),
    ("retrieval/seed_popularity", "namespace, access_count", "PartialTop"),
])
async def test_recency_and_popularity_seeds_read_an_index_in_order(store: Store, name: str, index: str,
                                                                   stop: str) -> None:
    """Not a sort of every memory of the namespace: the composite index is read in order and stops early."""
    params = in_map(FILTERS, namespaces=["a", "b"], statuses=["active"], kinds=None, now=utcnow(), as_of=None,
                    after=None, before=None, min_trust=0.0, limit=30)
    async with store.driver.session(database=store.database) as session:
        summary = await (await session.run("EXPLAIN " + store.cypher(name), params)).consume()
    operators = plan_operators(summary.plan or {})
    assert any(op == "NodeIndexSeek" and f"Memory({index})" in details for op, details in operators), [
        op for op, _ in operators]
    assert stop in [op for op, _ in operators], " ".join(op for op, _ in operators)


@pytest.mark.parametrize("one_statement", [True, False], ids=["one-statement", "stepwise"])
async def test_a_walk_takes_the_strongest_edges_that_pass_the_filters(bare_service: MemoryService, namespace: str,
                                                                      one_statement: bool) -> None:
    # The seed has FANOUT + 25 neighbours; its 10 strongest edges lead to episodic memories, which a kinds filter
    # hides. The walk must take the FANOUT strongest edges among those whose far end passes the filter, not the
    # FANOUT strongest edges before filtering (15 would survive), nor any FANOUT that pass. (No construction: the
    # notes are near copies, SIMILAR_TO would join them.)
    from graphmem.retrieval.service import FANOUT

    service = bare_service

    [seed] = await write(service, namespace, "The Orion cluster stores the customer records of Project Falcon.")
    semantic = await write(service, namespace, *(f"Note {i} of the weekly planning list." for i in range(FANOUT + 15)))
    hidden = [r.id for r in (await service.write_memories(
        [MemoryDraft(namespace=namespace, kind=MemoryKind.EPISODIC, content=f"Episode {i} of the planning list.")
         for i in range(10)], dedupe=False)).items]
    weights = {m: 0.9 + i / 1000 for i, m in enumerate(hidden)}  # the strongest
    weights |= {m: 0.1 + i / 100 for i, m in enumerate(semantic)}  # later notes: stronger
    await service.relate(namespace, [Relation(source_id=seed, target_id=m, type=RelationType.RELATES_TO, weight=w)
                                     for m, w in weights.items()])
    retrieval = RetrievalService(service.store, service.embedder, service.settings, one_statement=one_statement)
    options = SearchOptions(namespaces=(namespace,), k=100, channels=(Channel.VECTOR,), seed_k=1, hops=1,
                            kinds=(MemoryKind.SEMANTIC,), expand_limit=100, rerank=RerankMode.NONE)
    response = await retrieval.search("Where are Project Falcon's customer records?", options)
    reached = {r.memory.id for r in response.results if r.memory.id != seed}
    assert ids(response)[0] == seed
    assert reached == set(semantic[-FANOUT:])


@pytest.mark.parametrize("one_statement", [True, False], ids=["one-statement", "stepwise"])
async def test_a_hub_entity_does_not_walk_on(service: MemoryService, namespace: str, one_statement: bool,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The seed is ABOUT a small entity (3 memories) and a hub (more than VIA_MAX_DEGREE): the step through an
    # entity reaches the small one's memories; the hub's would be an arbitrary few of its many, so it passes none.
    import graphmem.retrieval.service as retrieval_service

    monkeypatch.setattr(retrieval_service, "VIA_MAX_DEGREE", 8)
    [seed] = await write(service, namespace, "The Orion cluster stores the customer records of Project Falcon.",
                         entities=("Zedra", "Acme"))
    small = await write(service, namespace, "Zedra signed the lease.", "Zedra owns two boats.", entities=("Zedra",))
    crowd = await write(service, namespace, *(f"Acme shipped order {i}." for i in range(9)), entities=("Acme",))
    retrieval = RetrievalService(service.store, service.embedder, service.settings, one_statement=one_statement)
    options = SearchOptions(namespaces=(namespace,), k=50, channels=(Channel.VECTOR,), seed_k=1, hops=1,
                            expand_limit=50, rerank=RerankMode.NONE)
    response = await retrieval.search("Where are Project Falcon's customer records?", options)
    assert ids(response)[0] == seed
    assert set(ids(response)[1:]) == set(small)
    assert all([p.type for p in r.path] == ["ABOUT", "ABOUT"] for r in response.results[1:])
    assert not set(crowd) & set(ids(response))
    monkeypatch.setattr(retrieval_service, "VIA_MAX_DEGREE", 100)  # under the cap, the hub walks on too
    retrieval = RetrievalService(service.store, service.embedder, service.settings, one_statement=one_statement)
    wider = await retrieval.search("Where are Project Falcon's customer records?", options)
    assert set(crowd) & set(ids(wider))


@pytest.mark.parametrize("one_statement", [True, False], ids=["one-statement", "stepwise"])
async def test_a_memory_kept_apart_by_min_trust_leads_nowhere(service: MemoryService, namespace: str,
                                                             one_statement: bool) -> None:
    # A planted, low-trust memory matches the query best and is tied to a trusted memory the query does not match.
    # Kept apart (min_trust), it must be neither a result nor the seed that walks to its neighbour.
    [planted] = await write(service, namespace, "Project Falcon's customer records moved to the Orion cluster.",
                            writer="tok-chat", trust=0.3)
    bridged, _ = await write(service, namespace, "The weekly lunch rota hangs beside the kitchen door.",
                                 "Invoices are paid on the first Monday of each month.")
    await service.relate(namespace, [Relation(source_id=planted, target_id=bridged, type=RelationType.RELATES_TO)])
    retrieval = RetrievalService(service.store, service.embedder, service.settings, one_statement=one_statement)
    q = "Where are Project Falcon's customer records kept?"
    base = {"namespaces": (namespace,), "k": 3, "channels": (Channel.VECTOR, Channel.FULLTEXT), "seed_k": 1,
            "hops": 1}
    open_ = await retrieval.search(q, SearchOptions(**base))  # type: ignore[arg-type]
    by_id = {r.memory.id: r for r in open_.results}
    assert planted in by_id
    assert bridged in by_id  # the walk from the planted seed reached its neighbour
    assert by_id[bridged].seed_id == planted
    apart = await retrieval.search(q, SearchOptions(**base, min_trust=0.5))  # type: ignore[arg-type]
    assert planted not in ids(apart)
    assert all(r.seed_id != planted for r in apart.results)
    assert all(not any(planted in (p.source_id, p.target_id) for p in r.path) for r in apart.results)
