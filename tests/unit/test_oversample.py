"""How many index rows a search asks for: learned per filter set from what the filters kept."""

from __future__ import annotations

import pytest

from graphmem.retrieval.oversample import MAX_OVERSAMPLE, Oversample


def test_unknown_filter_sets_get_the_fixed_factor() -> None:
    over = Oversample()
    assert over.limit("a", 30) == 120
    assert over.limit("a", 2000) == MAX_OVERSAMPLE


def test_the_limit_follows_the_share_kept() -> None:
    over = Oversample()
    over.observe("alone", seen=120, kept=120)  # the namespace is the whole index
    assert over.limit("alone", 30) == 60
    over.observe("fifth", seen=120, kept=24)  # one namespace of five
    assert over.limit("fifth", 30) == 300
    over.observe("none", seen=120, kept=0)  # nothing of it near the query: ask for all there is to ask
    assert over.limit("none", 30) == MAX_OVERSAMPLE
    assert over.limit("other", 30) == 120  # filter sets do not share what they learned
    over.observe("fifth", seen=225, kept=225)  # the latest share counts
    assert over.limit("fifth", 30) == 60


def test_never_below_seed_k_and_nothing_learned_from_an_empty_index() -> None:
    over = Oversample(margin=1.0)
    over.observe("a", seen=100, kept=100)
    assert over.limit("a", 30) == 30
    over.observe("b", seen=0, kept=0)
    assert over.limit("b", 30) == 120


def test_fixed_mode_ignores_observations_and_old_sets_are_forgotten() -> None:
    fixed = Oversample(adaptive=False)
    fixed.observe("a", seen=120, kept=120)
    assert fixed.limit("a", 30) == 120
    small = Oversample(keep=2)
    for key in ("a", "b", "c"):
        small.observe(key, seen=100, kept=100)
    assert small.limit("a", 10) == 40  # forgotten: the factor again
    assert small.limit("c", 10) == 20


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Oversample(margin=0.5)
    with pytest.raises(ValueError, match="at least 1"):
        Oversample(factor=0)
