"""Evaluation metrics: recall@k, reciprocal rank, evidence splitting, aggregation and percentiles, by hand."""

from __future__ import annotations

import math

import pytest

from graphmem.eval.metrics import (
    QuestionScore,
    by_category,
    latency_summary,
    percentile,
    reached,
    recall_at_k,
    reciprocal_rank,
    score_question,
    split_known,
    summarise,
)

# m1, m2: turn memories; s1: an observation derived from two turns; x: a memory reaching no turn
REACH = {"m1": ("D1:1",), "m2": ("D1:2",), "s1": ("D1:3", "D2:1"), "x": ()}


def test_reached_collects_dia_ids_of_the_top_k() -> None:
    assert reached(["s1", "m1", "m2"], REACH, 2) == {"D1:3", "D2:1", "D1:1"}
    assert reached(["unknown", "x"], REACH, 5) == set()  # memories missing from the map reach nothing
    with pytest.raises(ValueError, match="k must be at least 1"):
        reached(["m1"], REACH, 0)


def test_recall_at_k_counts_shares_of_evidence() -> None:
    ranked = ["m2", "x", "s1", "m1"]
    gold = ["D1:1", "D2:1", "D9:9"]  # 3 ids; D9:9 is never reached
    assert recall_at_k(ranked, REACH, gold, 1) == 0.0
    assert recall_at_k(ranked, REACH, gold, 3) == pytest.approx(1 / 3)  # s1 reaches D2:1
    assert recall_at_k(ranked, REACH, gold, 4) == pytest.approx(2 / 3)  # m1 reaches D1:1
    assert recall_at_k(ranked, REACH, gold, 20) == pytest.approx(2 / 3)  # k beyond the list
    assert recall_at_k(ranked, REACH, ["D1:2", "D1:2"], 1) == 1.0  # repeated gold ids count once
    assert recall_at_k([], REACH, gold, 5) == 0.0


def test_a_semantic_memory_reaches_every_turn_it_derives_from() -> None:
    assert recall_at_k(["s1"], REACH, ["D1:3", "D2:1"], 1) == 1.0


def test_recall_and_rr_refuse_empty_evidence() -> None:
    with pytest.raises(ValueError, match="without evidence"):
        recall_at_k(["m1"], REACH, [], 5)
    with pytest.raises(ValueError, match="without evidence"):
        reciprocal_rank(["m1"], REACH, [])


def test_reciprocal_rank_is_of_the_first_hit() -> None:
    assert reciprocal_rank(["m1", "m2"], REACH, ["D1:1"]) == 1.0
    assert reciprocal_rank(["x", "m2", "s1"], REACH, ["D2:1", "D1:2"]) == 0.5  # m2 at rank 2 comes first
    assert reciprocal_rank(["x", "unknown", "s1"], REACH, ["D2:1"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x", "m1"], REACH, ["D7:7"]) == 0.0


def test_split_known_keeps_unmatched_and_malformed_ids() -> None:
    known = {"D1:1", "D1:2", "D2:1"}
    ev = split_known(["D1:1", "D30:1", "D1:1", "D2:1"], known, malformed=["D"])
    assert ev.valid == ("D1:1", "D2:1")
    assert ev.unmatched == ("D30:1", "D")  # counted, not dropped
    empty = split_known(["D30:1"], known)
    assert empty.valid == ()  # such a question is excluded from recall by the caller
    assert empty.unmatched == ("D30:1",)
    assert split_known([], known).unmatched == ()


def test_score_question() -> None:
    s = score_question(4, ["m2", "s1", "m1"], REACH, ["D1:1", "D2:1"], (1, 2, 3))
    assert s.category == 4
    assert s.recall == {1: 0.0, 2: 0.5, 3: 1.0}
    assert s.rr == 0.5


def test_summarise_and_by_category() -> None:
    scores = [
        QuestionScore(1, {5: 1.0, 10: 1.0}, 1.0),
        QuestionScore(1, {5: 0.0, 10: 0.5}, 0.1),
        QuestionScore(2, {5: 0.5, 10: 1.0}, 0.5),
        QuestionScore(5, {5: 0.0, 10: 0.0}, 0.0),
    ]
    table = by_category(scores, (5, 10))
    assert set(table) == {"1", "2", "5", "all"}
    assert table["1"].n == 2
    assert table["1"].recall == {5: 0.5, 10: 0.75}
    assert table["1"].mrr == pytest.approx(0.55)
    assert table["all"].n == 3  # category 5 is reported apart, not in "all"
    assert table["all"].recall[5] == pytest.approx(0.5)
    assert table["all"].mrr == pytest.approx(1.6 / 3)
    assert table["5"].as_dict() == {"recall@5": 0.0, "recall@10": 0.0, "mrr": 0.0, "n": 1}
    empty = summarise([], (5,))
    assert empty.n == 0
    assert math.isnan(empty.recall[5])
    assert math.isnan(empty.mrr)


def test_percentile_interpolates_like_numpy() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 50) == 2.5
    assert percentile(values, 95) == pytest.approx(3.85)  # numpy.percentile([1, 2, 3, 4], 95)
    assert percentile([7.0], 95) == 7.0
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError, match="within"):
        percentile(values, 101)


def test_latency_summary() -> None:
    out = latency_summary({"embed": [1.0, 2.0, 3.0], "total": [10.0]})
    assert out["embed"] == {"p50": 2.0, "p95": pytest.approx(2.9), "n": 3}
    assert out["total"] == {"p50": 10.0, "p95": 10.0, "n": 1}


def test_the_summary_says_when_reads_failed_verification() -> None:
    """Memories that fail verification during a run (changed while it ran; a corpus under another key is refused
    before scoring) count as missed: the summary says so, and says nothing when none failed."""
    from graphmem.eval.report import summary_lines

    report = {"samples": ["conv-26"], "unmatched_evidence": {"count": 0}, "results": {},
              "questions": {"total": 3, "excluded_without_evidence": {"total": 0, "by_category": {}}}}
    assert not any("verification" in line for line in summary_lines(report))
    lines = summary_lines({**report, "integrity_failures": 7})
    assert any(line.startswith("7 reads of a memory failed signature verification") for line in lines)
