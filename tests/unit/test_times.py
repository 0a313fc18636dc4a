"""Times at the edges: a date without a zone is UTC wherever it comes in, and a validity range may not be empty."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from graphmem.models import MemoryDraft, MemoryKind, as_utc
from graphmem.retrieval.types import SearchOptions

NAIVE = datetime(2024, 1, 1, 12, 0)


def draft(**times: datetime | None) -> MemoryDraft:
    return MemoryDraft.model_validate({"namespace": "ns", "kind": MemoryKind.SEMANTIC,
                                       "content": "Dave lives in Paris.", **times})


def test_as_utc_reads_a_naive_time_as_utc_and_converts_an_aware_one() -> None:
    assert as_utc(NAIVE) == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    assert as_utc(NAIVE).tzinfo is UTC
    paris = datetime(2024, 1, 1, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    converted = as_utc(paris)
    assert (converted, converted.tzinfo) == (datetime(2024, 1, 1, 12, 0, tzinfo=UTC), UTC)
    assert as_utc(None) is None
    with pytest.raises(ValueError, match="out of range"):
        as_utc(datetime.min.replace(tzinfo=timezone(timedelta(hours=1))))


def test_search_filters_without_a_zone_are_utc() -> None:
    options = SearchOptions(namespaces=("ns",), as_of=NAIVE, created_after=NAIVE, created_before=NAIVE)
    for value in (options.as_of, options.created_after, options.created_before):
        assert value == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
        assert value is not None
        assert value.tzinfo is UTC


def test_draft_times_without_a_zone_are_utc() -> None:
    made = draft(created_at=NAIVE, valid_from=NAIVE, expires_at=NAIVE + timedelta(days=1))
    assert {made.created_at, made.valid_from} == {datetime(2024, 1, 1, 12, 0, tzinfo=UTC)}
    assert made.expires_at is not None
    assert made.expires_at.tzinfo is UTC


@pytest.mark.parametrize("until", [NAIVE, NAIVE - timedelta(days=1)])
def test_an_empty_validity_range_is_refused(until: datetime) -> None:
    with pytest.raises(ValidationError, match="valid_until must be after valid_from"):
        draft(valid_from=NAIVE, valid_until=until)
    assert draft(valid_from=NAIVE, valid_until=NAIVE + timedelta(seconds=1)).valid_until is not None
    assert draft(valid_until=until).valid_from is None  # an end alone is fine
