"""Fitting the ranking weights by leave-one-conversation-out cross-validation (pure), and the fit's ranking being
the service's ranking."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.eval.fit import PoolItem, PoolQuestion, coordinate_ascent, leave_one_out, ranked, recall_at
from graphmem.graph.answer_kinds import held_kinds
from graphmem.retrieval.answertype import answers
from graphmem.retrieval.candidates import Candidate
from graphmem.retrieval.formula import FormulaWeights, asks, length_prior, speaker_of
from graphmem.retrieval.ranking import QueryContext, rank
from graphmem.retrieval.types import Channel, SearchOptions
from graphmem.retrieval.wordmatch import coverage

BASE = FormulaWeights(fused=0.0, graph=0.0, time=0.0, entity=0.0, before=0.0, after=0.0, fold=False)


def question(conv: str) -> PoolQuestion:
    # the gold memory is only reached over an edge and is less similar than a distractor seed
    return PoolQuestion(conv, 1, frozenset({f"D{conv}"}), (
        PoolItem("distractor-" + conv, 0.5, 1.0, 0.0, False, seed=True),
        PoolItem("gold-" + conv, 0.4, 0.0, 0.3, False, seed=False),
    ))


REACH = {f"gold-{c}": (f"D{c}",) for c in "abc"} | {f"distractor-{c}": ("X",) for c in "abc"}


def test_ranked_uses_graph_weight_and_expand_limit() -> None:
    q = question("a")
    assert ranked(q, BASE, 20)[0] == "distractor-a"
    assert ranked(q, BASE.model_copy(update={"graph": 1.0}), 20)[0] == "gold-a"
    assert ranked(q, BASE.model_copy(update={"graph": 1.0}), 0) == ["distractor-a"]  # expanded ones cut


def test_recall_at_counts_reached_evidence() -> None:
    assert recall_at(["gold-a", "x"], frozenset({"Da", "Db"}), REACH, 1) == 0.5
    assert recall_at([], frozenset(), REACH, 10) == 0.0


def test_coordinate_ascent_and_leave_one_out_score_the_held_out_conversation() -> None:
    qs = [question(c) for c in "abc"]
    values = {"graph": (0.0, 1.0)}
    chosen, recall = coordinate_ascent(qs[:1], BASE, values, REACH, 1)
    assert chosen.graph == 1.0
    assert recall == 1.0
    folds = leave_one_out(qs, BASE, values, REACH, 1, BASE)
    assert [f.held_out for f in folds] == ["a", "b", "c"]
    assert all(f.held_out_recall == 1.0 for f in folds)
    assert all(f.held_out_baseline == 0.0 for f in folds)
    # no gain, no change: the start is kept
    assert coordinate_ascent([PoolQuestion("a", 1, frozenset({"X"}), qs[0].pool)], BASE, values, REACH, 1)[0] == BASE


def test_fit_ranks_as_the_service_does() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    old = "2023-05-01T00:00:00+00:00"
    w = FormulaWeights(fused=0.2, text=0.3, length=0.2, question=0.3, speaker=0.2, answer=0.3, graph=0.3, entity=0.2,
                       before=0.3, after=0.1, recency=0.0, frequency=0.0, confidence=0.0)
    fulltext = {"f": 4.0, "x": 2.0, "y": 3.0}
    asked = QueryContext(entities=("caroline", "pottery"), words=("ff", "yyy"), word_weights=(2.0, 0.5),
                         kinds=frozenset({"number"}), named=frozenset())
    rows = [  # id, cosine, fused, received, entity hits, before, after, turns
        ("q", 0.7, 1.0, 0.0, 1, None, "a", ("t1",)), ("a", 0.3, 0.0, 0.2, 0, "q", None, ("t2",)),
        ("f", 0.65, 0.8, 0.0, 2, None, None, ("t1",)), ("x", 0.5, 0.5, 0.0, 0, None, None, ("t3",)),
        ("y", 0.45, 0.6, 0.1, 1, "x", None, ("t4",)),
    ]
    content = {r[0]: r[0] * (8 * i + 1) for i, r in enumerate(rows)}
    content["y"] += "?"  # asks: the question term is taken off
    content["x"] = "Caroline: " + content["x"]  # said by someone the query names: the speaker term is added
    content["a"] += " twice"  # holds the kind of answer asked: the answer term is added after the cut
    candidates = {r[0]: Candidate(data={"id": r[0], "namespace": "ns", "kind": "episodic", "content": content[r[0]],
                                        "created_at": old}, cosine=r[1], fused=r[2], received=r[3],
                                  entity_hits=r[4], before=r[5], after=r[6], turns=r[7]) for r in rows}
    pool = tuple(PoolItem(r[0], r[1], r[2], r[3], False, r[2] > 0, r[4] / 2, r[5], r[6], r[7],
                          text=coverage(content[r[0]], asked.words, asked.word_weights),
                          length=length_prior(content[r[0]], w.length_cap), asking=asks(content[r[0]]),
                          said=speaker_of(content[r[0]]) in asked.entities,
                          answer=answers(held_kinds(content[r[0]]), asked.kinds, asked.named))
                 for r in rows)
    options = SearchOptions(namespaces=("ns",), k=5)
    service_order = [r.memory.id for r in rank(candidates, {Channel.FULLTEXT: fulltext}, options, w,
                                               lambda c: c.cosine, now, asked, 5)]
    assert ranked(PoolQuestion("c", 1, frozenset(), pool), w, 20, need=5) == service_order
    assert service_order[0] == "f"  # about both query entities
    assert service_order[-1] == "q"  # its turn is covered by f: folded behind the rest
    assert [i.id for i in pool if i.answer] == ["a"]
    no_answer = w.model_copy(update={"answer": 0.0})
    assert ranked(PoolQuestion("c", 1, frozenset(), pool), no_answer, 20, need=5).index("a") > service_order.index("a")


def test_a_k10_search_ranks_as_the_head_of_a_k20_search() -> None:
    """The context stage weighs a fixed pool (``ranking.CONTEXT_POOL``), not one that grows with k: what an agent
    asking for 10 gets is what the eval's R@10 from a k=20 search scores."""
    import random

    rng = random.Random(5)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    ids = [f"m{i:02d}" for i in range(90)]
    candidates = {m: Candidate(data={"id": m, "namespace": "ns", "kind": "episodic", "content": f"turn {m} " * 9,
                                     "created_at": "2023-05-01T00:00:00+00:00"},
                               cosine=rng.uniform(0.2, 0.8), fused=rng.uniform(0, 1), task=f"t{i % 7}",
                               before=ids[i - 1] if i else None, after=ids[i + 1] if i + 1 < len(ids) else None)
                  for i, m in enumerate(ids)}
    w = FormulaWeights()
    assert w.before or w.after or w.task  # the context stage runs

    def top(k: int) -> list[str]:
        options = SearchOptions(namespaces=("ns",), k=k)
        return [r.memory.id for r in rank(candidates, {}, options, w, lambda c: c.cosine, now, QueryContext(), k)]

    assert top(20)[:10] == top(10)
    assert top(30)[:10] == top(10)
