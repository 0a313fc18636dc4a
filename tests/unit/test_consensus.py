"""Consensus at retrieval: memories that disagree with the majority about their subject are demoted."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

from graphmem.retrieval.consensus import (
    DEFAULT_CONFIG,
    ConsensusConfig,
    ConsensusItem,
    Dissent,
    apply,
    dissenters,
)

DIM = 16


def axis(i: int) -> np.ndarray:
    vector = np.zeros(DIM)
    vector[i] = 1.0
    return vector


def near(i: int, seed: int, spread: float = 0.05) -> list[float]:
    """A vector close to axis ``i`` (cosine distance well under 0.05)."""
    rng = np.random.default_rng(seed)
    return [float(x) for x in axis(i) + spread * rng.standard_normal(DIM)]


def item(key: str, embedding: Iterable[float] | np.ndarray, *subjects: str, score: float = 1.0) -> ConsensusItem:
    return ConsensusItem(id=key, embedding=[float(x) for x in embedding], subjects=subjects, score=score)


def tight_majority(subject: str, n: int, prefix: str = "m") -> list[ConsensusItem]:
    return [item(f"{prefix}{k}", near(0, seed=k), subject) for k in range(n)]


def test_one_memory_pointing_away_from_a_tight_majority_is_demoted_with_the_reason() -> None:
    items = [*tight_majority("caroline", 5), item("poison", 3.0 * axis(1), "caroline", score=9.0)]
    found = dissenters(items)
    assert list(found) == ["poison"]
    assert found["poison"] == Dissent(
        id="poison", subject="caroline", group_size=6, majority_size=5, factor=0.5,
        reason="disagrees with 5 of 6 memories about 'caroline' (outlier; DBSCAN cosine eps 0.5, min_samples 2)")


def test_agreeing_poisoned_memories_form_a_minority_cluster_and_are_both_demoted() -> None:
    items = [*tight_majority("caroline", 5), item("p1", near(1, seed=90), "caroline"),
             item("p2", near(1, seed=91), "caroline")]
    found = dissenters(items)
    assert sorted(found) == ["p1", "p2"]
    assert all(d.majority_size == 5 and d.group_size == 7 and "minority cluster" in d.reason for d in found.values())


def test_benign_spread_about_one_subject_is_not_demoted() -> None:
    # Different hobbies of one person: a shared component, each with its own; pairwise cosine distance 0.4.
    common = np.full(DIM, 1.0) / np.sqrt(DIM)
    hobbies = [item(f"h{k}", np.sqrt(0.6) * common + np.sqrt(0.4) * axis(k), "caroline") for k in range(6)]
    assert dissenters(hobbies) == {}
    # The same spread with a radius below it: all noise, no majority, still nobody demoted.
    assert dissenters(hobbies, ConsensusConfig(eps=0.2)) == {}


def test_no_strict_majority_means_nobody_is_demoted() -> None:
    halves = [item(f"a{k}", near(0, seed=k), "caroline") for k in range(3)]
    halves += [item(f"b{k}", near(1, seed=10 + k), "caroline") for k in range(3)]
    assert dissenters(halves) == {}
    scattered = [item(f"s{k}", axis(k), "caroline") for k in range(6)]
    assert dissenters(scattered) == {}
    # One more on side a makes it a strict majority (4 of 7): side b dissents.
    assert sorted(dissenters([*halves, item("a3", near(0, seed=3), "caroline")])) == ["b0", "b1", "b2"]


def test_groups_below_min_group_are_left_alone() -> None:
    items = [*tight_majority("caroline", 2), item("poison", axis(1), "caroline")]
    assert dissenters(items) == {}
    assert list(dissenters(items, ConsensusConfig(min_group=3))) == ["poison"]


def test_memories_without_subjects_are_not_judged() -> None:
    items = [item(f"m{k}", near(0, seed=k)) for k in range(5)] + [item("other", axis(1))]
    assert dissenters(items) == {}


def test_a_memory_in_two_groups_dissents_if_it_dissents_in_either_and_the_strongest_is_reported() -> None:
    caroline = tight_majority("caroline", 4, prefix="c")
    melanie = [item(f"n{k}", near(2, seed=50 + k), "melanie") for k in range(6)]
    # Agrees with the caroline majority, far from the melanie one.
    both = item("both", near(0, seed=99), "caroline", "Melanie")
    found = dissenters([*caroline, *melanie, both])
    assert list(found) == ["both"]
    assert (found["both"].subject, found["both"].group_size, found["both"].majority_size) == ("melanie", 7, 6)
    # Far from both majorities: the stronger dissent (6 of 7 against it, not 4 of 5) is the one reported.
    away = item("away", axis(5), "caroline", "melanie")
    found = dissenters([*caroline, *melanie, away])
    assert list(found) == ["away"]
    assert (found["away"].subject, found["away"].majority_size, found["away"].group_size) == ("melanie", 6, 7)


def test_empty_input() -> None:
    assert dissenters([]) == {}
    assert apply({}, {}) == {}


def test_output_does_not_depend_on_input_order() -> None:
    items = [*tight_majority("caroline", 6), item("p1", near(1, seed=90), "caroline", "melanie"),
             item("p2", axis(3), "caroline"), *[item(f"n{k}", near(2, seed=50 + k), "melanie") for k in range(5)]]
    expected = dissenters(items)
    assert list(expected) == ["p1", "p2"]
    rng = random.Random(7)
    for _ in range(10):
        shuffled = items[:]
        rng.shuffle(shuffled)
        assert list(dissenters(shuffled).items()) == list(expected.items())


def test_apply_multiplies_only_the_dissenters_scores() -> None:
    items = [*tight_majority("caroline", 5), item("poison", axis(1), "caroline")]
    found = dissenters(items, ConsensusConfig(factor=0.25))
    scores = {"m0": 0.9, "poison": 0.8, "elsewhere": 0.1}
    demoted = apply(scores, found)
    assert demoted == {"m0": 0.9, "poison": pytest.approx(0.2), "elsewhere": 0.1}
    assert list(demoted) == list(scores)
    assert apply({"m0": 0.9}, found) == {"m0": 0.9}  # a dissenter not among the results is ignored


def test_zero_embeddings_are_not_judged_and_bad_input_is_refused() -> None:
    items = [*tight_majority("caroline", 3), item("zero", np.zeros(DIM), "caroline")]
    assert dissenters(items) == {}  # three judged members: below min_group
    with pytest.raises(ValueError, match="given twice"):
        dissenters([item("a", axis(0), "x"), item("a", axis(1), "x")])
    with pytest.raises(ValueError, match="embedding of"):
        dissenters([item("a", axis(0), "x"), item("b", [1.0, 0.0], "x")])


@pytest.mark.parametrize("change", [{"eps": 0.0}, {"eps": 2.5}, {"min_samples": 0}, {"min_group": 2},
                                    {"factor": 1.5}, {"factor": -0.1}, {"max_subject_degree": 0}])
def test_config_is_validated(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(change))):
        dataclasses.replace(DEFAULT_CONFIG, **change)


def test_a_border_point_between_two_clusters_goes_the_same_way_whatever_the_input_order() -> None:
    # Five at angle 0..d, five at 3d..4d, one border point at 2d within eps of one member of each side only:
    # whichever side claims it holds 6 of 11. Judged in id order, side a claims it, every time.
    def at(angle: float) -> list[float]:
        return [float(np.cos(angle)), float(np.sin(angle))] + [0.0] * (DIM - 2)

    d = 0.3
    side_a = [item(f"a{k}", at(0.0), "x") for k in range(4)] + [item("a4", at(d), "x")]
    side_c = [item(f"c{k}", at(4 * d), "x") for k in range(4)] + [item("c4", at(3 * d), "x")]
    items = [*side_a, item("b", at(2 * d), "x"), *side_c]
    config = ConsensusConfig(eps=0.06, min_samples=4)
    rng = random.Random(3)
    for _ in range(20):
        shuffled = items[:]
        rng.shuffle(shuffled)
        found = dissenters(shuffled, config)
        assert sorted(found) == ["c0", "c1", "c2", "c3", "c4"]
        assert {(v.group_size, v.majority_size) for v in found.values()} == {(11, 6)}
