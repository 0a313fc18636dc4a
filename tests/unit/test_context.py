"""The context stage (pure): FOLLOWS neighbours, the task's other memories, provenance folding."""

from __future__ import annotations

import pytest

from graphmem.retrieval.context import context_bonus, fold_covered


def test_a_turn_gains_from_the_neighbours_that_are_candidates() -> None:
    base = {"q": 0.8, "a": 0.3, "z": 0.1}
    before = {"a": "q", "z": "gone"}  # a follows q; z follows a memory that is no candidate
    after = {"q": "a"}
    bonus = context_bonus(base, before, after, w_before=0.5, w_after=0.25)
    assert bonus["a"] == pytest.approx(0.4)  # half of what the turn before it scored
    assert bonus["q"] == pytest.approx(0.075)  # a quarter of the answer after it
    assert bonus["z"] == 0.0


def test_the_task_term_takes_the_best_other_memory_of_the_task() -> None:
    base = {"a": 0.9, "b": 0.5, "c": 0.2, "d": 0.7}
    task = {"a": "t1", "b": "t1", "c": "t1", "d": None}
    bonus = context_bonus(base, {}, {}, 0.0, 0.0, task, w_task=0.1)
    assert bonus["a"] == pytest.approx(0.05)  # not itself: the next best, b
    assert bonus["b"] == pytest.approx(0.09)
    assert bonus["c"] == pytest.approx(0.09)
    assert bonus["d"] == 0.0


def test_fold_moves_results_whose_turns_are_covered() -> None:
    order = ["fact", "turn", "other", "fact2"]
    turns = {"fact": ("t1", "t2"), "turn": ("t1",), "other": ("t3",), "fact2": ("t2", "t3")}
    folded, covered_by = fold_covered(order, turns)
    assert folded == ["fact", "other", "turn", "fact2"]
    assert covered_by == {"turn": "fact", "fact2": "fact"}
    assert fold_covered(["x", "y"], {})[0] == ["x", "y"]  # without provenance nothing moves
