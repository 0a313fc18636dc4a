"""The one-statement search (cypher/retrieval/search.cypher) against the stepwise reference (the seed statements,
``fusion.fuse``, ``expansion.spread_hop`` over ``expand_hop`` rows, ``candidates``): same candidates, same
fused and received activations, same paths, on a random graph with entities, typed weighted edges, access
counts and creation times, under several option sets. Real Neo4j, real embedder."""

from __future__ import annotations

import itertools
import random
from datetime import timedelta
from typing import Any

import pytest

import graphmem.retrieval.service as retrieval_service
from graphmem.models import MemoryDraft, MemoryKind, Relation, RelationType, utcnow
from graphmem.retrieval import Channel, RerankMode, RetrievalService, SearchOptions
from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.formula import FormulaWeights
from graphmem.retrieval.fusion import fuse
from graphmem.retrieval.oversample import Oversample
from graphmem.retrieval.ranking import QueryContext, keep_for, weighed
from graphmem.retrieval.search_params import search_filters
from graphmem.retrieval.service import FANOUT
from graphmem.retrieval.types import Fusion
from graphmem.retrieval.wordmatch import coverage
from graphmem.service import MemoryService
from graphmem.store import Step

PEOPLE = ["Ana", "Bo", "Chen", "Dara", "Eli", "Fay", "Gus", "Hana"]
THINGS = ["the Orion cluster", "the billing service", "a pottery class", "the Lisbon trip", "her violin",
          "the garden shed", "the quarterly report", "a marathon"]
VERBS = ["talked about", "fixed", "planned", "worried about", "finished", "signed up for", "paid for", "moved"]
ASKS = [".", "?", ".", "\uff1f  ", "."]
SAYS = ["", "{who}: ", "", " {who}\uff1a", "", "Note: "]
QUERIES = ["Who fixed the billing service?", "What did Chen plan for the Lisbon trip?", "marathon training",
           "Which cluster stores the customer records?", "Hana's violin lessons", "garden shed repairs"]


async def random_graph(service: MemoryService, ns: str, rng: random.Random) -> list[str]:
    now = utcnow()
    drafts = []
    for i in range(90):
        who, what, verb = rng.choice(PEOPLE), rng.choice(THINGS), rng.choice(VERBS)
        drafts.append(MemoryDraft(
            namespace=ns, kind=rng.choice([MemoryKind.SEMANTIC, MemoryKind.EPISODIC]),
            content=SAYS[i % len(SAYS)].format(who=who)  # some are said by someone: the speaker term
                    + f"{who} {verb} {what} on day {i} ({rng.choice(['briefly', 'at length', 'with Bo', 'alone'])})"
                    + ASKS[i % len(ASKS)],  # some ask: the question term, in both languages
            entities=tuple(rng.sample([who, what.removeprefix("the ").removeprefix("a "), rng.choice(PEOPLE)], 2)),
            created_at=now - timedelta(hours=rng.uniform(0, 500)), confidence=rng.uniform(0.5, 1.0)))
    ids = [r.id for r in (await service.write_memories(drafts, dedupe=False)).items]
    types = [RelationType.RELATES_TO, RelationType.CAUSES, RelationType.SUPPORTS, RelationType.PART_OF,
             RelationType.FOLLOWS, RelationType.CONTRADICTS]
    pairs = {(a, b) for a, b in (rng.sample(ids, 2) for _ in range(160))}
    hub = ids[0]  # more edges than FANOUT: seeds it does not walk to still walk to it
    pairs |= {(hub, b) for b in rng.sample(ids[1:], FANOUT + 10)}
    await service.relate(ns, [Relation(source_id=a, target_id=b, type=rng.choice(types),
                                       weight=round(rng.uniform(0.2, 1.0), 3)) for a, b in pairs])
    touched = [{"namespace": ns, "id": i, "n": rng.randint(1, 9), "at": now - timedelta(minutes=rng.randint(0, 999))}
               for i in rng.sample(ids, 25)]
    await service.store.write([Step("retrieval/touch", {"rows": touched})])
    return ids


def summary(candidates: dict[str, Candidate]) -> dict[str, tuple[float, float, tuple[Any, ...], str | None]]:
    return {i: (round(c.fused, 9), round(c.received, 9), tuple((p.source_id, p.type, p.target_id) for p in c.path),
                c.seed_id) for i, c in candidates.items()}


OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"hops": 0},
    {"fusion": Fusion.WEIGHTED},
    {"channels": (Channel.VECTOR, Channel.FULLTEXT), "seed_k": 8, "expand_limit": 12},
    {"channels": (Channel.RECENCY, Channel.POPULARITY), "seed_k": 5},
    {"channels": (Channel.VECTOR, Channel.FULLTEXT, Channel.RECENCY, Channel.POPULARITY)},
    {"kinds": (MemoryKind.SEMANTIC,), "seed_k": 10},
    {"via_max_degree": 12},  # some entities are hubs: they must not walk on, in both paths
]


@pytest.mark.parametrize("extra", OPTION_SETS, ids=lambda e: ",".join(f"{k}" for k in e) or "defaults")
async def test_one_statement_matches_the_stepwise_reference(service: MemoryService, namespace: str,
                                                             extra: dict[str, Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    extra = dict(extra)
    if (cap := extra.pop("via_max_degree", None)) is not None:
        monkeypatch.setattr(retrieval_service, "VIA_MAX_DEGREE", cap)
    await random_graph(service, namespace, random.Random(11))
    if cap is not None:
        degrees = [r["degree"] for r in await service.store.read("test/entity_degrees", namespace=namespace)]
        assert min(degrees) <= cap < max(degrees), degrees
    fixed = Oversample(adaptive=False)  # both ask the indexes for the same rows
    weights = FormulaWeights(speaker=0.3)  # every term weighs, whatever the defaults
    one = RetrievalService(service.store, service.embedder, service.settings, oversample=fixed, weights=weights)
    steps = RetrievalService(service.store, service.embedder, service.settings, one_statement=False,
                             oversample=fixed, weights=weights)
    options = SearchOptions(namespaces=(namespace,), k=20, rerank=RerankMode.NONE, **extra)
    compared = asking = saying = 0
    for query in QUERIES:
        qvec = service.embedder.embed_query(query)
        filters = search_filters(options, utcnow())
        for _ in range(5):  # Lucene may merge away deleted documents between two reads, rescaling BM25 scores:
            before, _ = await steps._seeds(query, qvec, options, filters)  # compare only reads with stable stats
            got, got_scores, _, _ = await one._graph(query, qvec, options, filters, keep_all=True)
            channel_scores, seed_keys = await steps._seeds(query, qvec, options, filters)
            if before == channel_scores:
                break

        seeds = fuse(options.fusion, channel_scores, options.channel_weights)
        state, keys = await steps._expand(seeds, seed_keys, options, filters)
        want = await steps._candidates(seeds, state, keys, options, qvec, channel_scores.get(Channel.VECTOR, {}),
                                       QueryContext())
        ordered = {c: list(s.items()) for c, s in channel_scores.items() if s}  # an empty channel: absent
        assert {c: list(s.items()) for c, s in got_scores.items()} == ordered
        assert set(got) == set(want), query
        mine, ref = summary(got), summary(want)
        for i in ref:  # paths agree unless two ways in were equally strong (then either may be kept)
            assert mine[i][:2] == pytest.approx(ref[i][:2], rel=1e-6, abs=1e-9), (query, i)
            assert mine[i][2:] == ref[i][2:], (query, i)
            assert got[i].cosine == pytest.approx(want[i].cosine, abs=1e-6), (query, i)
        compared += len(ref)
        if options.hops:
            assert any(c.received > 0 and c.path for c in got.values()), "the graph must exercise the expansion"
        for rerank in (RerankMode.NONE, RerankMode.FORMULA):  # the statement returns only the best it ranked
            asked = options.model_copy(update={"rerank": rerank, "k": 5})
            a = await one.search(query, asked)
            b = await steps.search(query, asked)
            assert [r.memory.id for r in a.results] == [r.memory.id for r in b.results], (query, rerank)
            for x, y in zip(a.results, b.results, strict=True):  # each search has its own now: recency may differ
                # the context term weighs the neighbours' scores, recency included: it moves with "now" too
                assert (x.score, x.parts.recency, x.parts.rerank or 0, x.parts.context) == pytest.approx(
                    (y.score, y.parts.recency, y.parts.rerank or 0, y.parts.context), abs=1e-5)
                timeless = {"recency": 0, "rerank": 0, "context": 0}
                assert x.parts.model_copy(update=timeless) == y.parts.model_copy(update=timeless)
            assert len(a.results) == 5
            assert "graph" in a.timings_ms
            assert "seeds" in b.timings_ms
            # the statement's own order (best first) is the client's formula order (before the context stage)
            # with what the query names (time, entities, content words): every formula term in both languages
            named = one.query_context(query, filters["now"])
            assert named.words, query
            ranked, ranked_scores, weighed_there, _ = await one._graph(query, qvec, asked, filters, named,
                                                                    keep_all=True)
            # the words' weights among the candidates: the statement's are the client's (wordmatch.word_weights)
            assert weighed_there.word_weights == pytest.approx(weighed(named, ranked).word_weights, rel=1e-9)
            assert len(weighed_there.word_weights) == len(named.words), query
            scored = await one._rank(query, ranked, ranked_scores, asked.model_copy(update={"k": len(ranked)}),
                                     filters["now"], weighed_there)
            python: dict[str, float] = {}
            for r in scored[0]:
                mine_score = r.score if rerank is RerankMode.NONE else r.parts.rerank
                assert mine_score is not None, (query, rerank)  # the formula rerank scores every result
                python[r.memory.id] = mine_score
            asking += sum(1 for r in scored[0] if r.parts.question)
            saying += sum(1 for r in scored[0] if r.parts.speaker)
            order = [python[i] for i in ranked]
            assert all(x >= y - 1e-6 for x, y in itertools.pairwise(order)), (query, rerank, order)
            best, _, _, _ = await one._graph(query, qvec, asked, filters, named)
            assert list(best) == list(ranked)[:keep_for(5, one.weights, rerank)]
    assert compared > 50
    assert asking > 0, "some candidates must ask: the question term is compared too"
    assert saying > 0, "some candidates must be said by someone the query names: the speaker term is compared too"


MIXED = ["用户最喜欢的编程语言是Python\uff0c讨厌Java。", "用户最喜欢的编程语言是 Python。", "Python是什么语言\uff1f",
         "计划在Q3之前完成数据库迁移", "Q3 planning: migrate the billing database",
         "2024年3月的项目会议在Shinjuku的酒店", "会议推迟到2025年6月\U0001f600", "I learned python and java at school",
         "Javascript和Kotlin都不是Java", "钢琴课在周六"]
MIXED_QUERIES = ["Python", "Java", "Q3之前完成迁移", "2024年3月的项目会议", "Shinjuku的酒店", "推迟到2025年6月",
                 "Does the user like Python or Java?"]
TEXT_ONLY = FormulaWeights(similarity=0, fused=0, length=0, question=0, speaker=0, answer=0, graph=0, time=0, entity=0,
                           before=0, after=0, task=0, recency=0, frequency=0, confidence=0)


async def test_the_statement_finds_words_glued_to_chinese_as_the_client(service: MemoryService, namespace: str) -> None:
    # wordmatch.searchable puts a space after a Chinese character that a word follows ("是Python" holds " python");
    # the statement builds its searchable text in Cypher: both must find the same words in the same memories
    written = await service.write_memories([MemoryDraft(namespace=namespace, kind=MemoryKind.SEMANTIC, content=c)
                                            for c in MIXED], dedupe=False)
    liked = written.items[0].id  # "... 是Python, 讨厌Java。" (a full-width comma)
    one = RetrievalService(service.store, service.embedder, service.settings, weights=TEXT_ONLY)
    options = SearchOptions(namespaces=(namespace,), k=len(MIXED), seed_k=len(MIXED), rerank=RerankMode.FORMULA)
    for query in MIXED_QUERIES:
        filters = search_filters(options, utcnow())
        named = one.query_context(query, filters["now"])
        ranked, _, there, _ = await one._graph(query, service.embedder.embed_query(query), options, filters, named,
                                               keep_all=True)
        assert len(ranked) == len(MIXED), query  # every memory is a candidate
        assert there.word_weights == pytest.approx(weighed(named, ranked).word_weights, rel=1e-9), query
        text = {i: coverage(c.data["content"], named.words, there.word_weights) for i, c in ranked.items()}
        held = {i for i, t in text.items() if t > 0}
        order = [text[i] for i in ranked]  # the statement ranks by the text term alone: the client's, best first
        assert all(x >= y - 1e-9 for x, y in itertools.pairwise(order)), (query, order)
        assert set(list(ranked)[:len(held)]) == held, query
        if query in ("Python", "Java"):  # a word right after a Chinese character counts, there and here
            assert text[liked] == 1.0, query
