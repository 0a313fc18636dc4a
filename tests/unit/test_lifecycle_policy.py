"""The life cycle policy, pure: which memory expires, is archived or purged at a fixed time; its settings; the
working-memory TTL the write plan applies; when a maintenance job is due again; the metrics of a run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from prometheus_client import generate_latest
from pydantic import ValidationError

from graphmem.api.observability import Metrics
from graphmem.config import ARCHIVE_BELOW_CONFIDENCE, Settings
from graphmem.lifecycle.policy import ArchiveRule, LifecyclePolicy
from graphmem.lifecycle.worker import next_due
from graphmem.models import Memory, MemoryDraft, MemoryKind, MemoryStatus
from graphmem.service.planning import plan_batch

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
DAY = timedelta(days=1)
POLICY = LifecyclePolicy(
    working_ttl=timedelta(hours=24),
    archive=(ArchiveRule(MemoryKind.EPISODIC, 90 * DAY, 0.5), ArchiveRule(MemoryKind.SEMANTIC, 180 * DAY, 0.3)),
    purge_after=30 * DAY,
)


def memory(kind: MemoryKind = MemoryKind.EPISODIC, **kw: Any) -> Memory:
    fields: dict[str, object] = {"namespace": "ns", "kind": kind, "content": "Caroline went hiking.",
                                 "confidence": 0.2, "created_at": NOW - 100 * DAY, "updated_at": NOW - 100 * DAY}
    fields.update(kw)
    return Memory.model_validate(fields)


# --- archive -------------------------------------------------------------------------------------------------
def test_an_old_unused_unsure_memory_is_archived() -> None:
    assert POLICY.archivable(memory(), NOW)


@pytest.mark.parametrize(("why", "changes"), [
    ("young", {"created_at": NOW - 89 * DAY}),
    ("exactly at the age", {"created_at": NOW - 90 * DAY}),
    ("accessed once", {"access_count": 1, "last_accessed_at": NOW - 95 * DAY}),
    ("confident enough", {"confidence": 0.5}),
    ("not active", {"status": MemoryStatus.SUPERSEDED}),
    ("already archived", {"status": MemoryStatus.ARCHIVED}),
    ("quarantined", {"status": MemoryStatus.QUARANTINED}),
    ("expired (swept instead)", {"expires_at": NOW - DAY}),
])
def test_what_is_not_archived(why: str, changes: dict[str, Any]) -> None:
    assert not POLICY.archivable(memory(**changes), NOW), why


def test_each_kind_has_its_own_rule_and_lessons_none_unless_configured() -> None:
    semantic = memory(MemoryKind.SEMANTIC, created_at=NOW - 150 * DAY)
    assert not POLICY.archivable(semantic, NOW)  # 150 days: old for an episode, not for a fact (180)
    assert POLICY.archivable(memory(MemoryKind.SEMANTIC, created_at=NOW - 181 * DAY, confidence=0.29), NOW)
    assert not POLICY.archivable(memory(MemoryKind.SEMANTIC, created_at=NOW - 181 * DAY, confidence=0.3), NOW)
    ancient = memory(MemoryKind.LESSON, created_at=NOW - 3650 * DAY, confidence=0.01)
    assert not POLICY.archivable(ancient, NOW)
    with_lessons = LifecyclePolicy(archive=(ArchiveRule(MemoryKind.LESSON, 365 * DAY, 0.5),))
    assert with_lessons.archivable(ancient, NOW)


def test_the_statement_parameters_say_the_same_cut_off() -> None:
    assert POLICY.archive_rules(NOW) == [
        {"kind": "episodic", "before": NOW - 90 * DAY, "below": 0.5},
        {"kind": "semantic", "before": NOW - 180 * DAY, "below": 0.3},
    ]
    assert POLICY.purge_before(NOW) == NOW - 30 * DAY
    assert LifecyclePolicy(purge_after=None).purge_before(NOW) is None


# --- purge and expiry ----------------------------------------------------------------------------------------
def test_deleted_memories_are_purged_after_the_retention_period_only() -> None:
    deleted = memory(status=MemoryStatus.DELETED, updated_at=NOW - 31 * DAY)
    assert POLICY.purgeable(deleted, NOW)
    assert not POLICY.purgeable(memory(status=MemoryStatus.DELETED, updated_at=NOW - 29 * DAY), NOW)
    assert not POLICY.purgeable(memory(status=MemoryStatus.ARCHIVED, updated_at=NOW - 365 * DAY), NOW)
    assert not LifecyclePolicy(purge_after=None).purgeable(deleted, NOW)


def test_expiry_is_the_expires_at_time() -> None:
    assert POLICY.expired(memory(MemoryKind.WORKING, expires_at=NOW), NOW)
    assert not POLICY.expired(memory(MemoryKind.WORKING, expires_at=NOW + timedelta(seconds=1)), NOW)
    assert not POLICY.expired(memory(MemoryKind.SEMANTIC), NOW)


# --- settings ------------------------------------------------------------------------------------------------
def test_policy_from_default_settings() -> None:
    policy = LifecyclePolicy.from_settings(Settings())
    assert policy.working_ttl == timedelta(hours=24)
    assert policy.purge_after == timedelta(days=30)
    assert {r.kind for r in policy.archive} == {MemoryKind.EPISODIC, MemoryKind.SEMANTIC}  # never lessons by default
    assert {r.below_confidence for r in policy.archive} == {ARCHIVE_BELOW_CONFIDENCE}


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_ARCHIVE_AFTER_DAYS", '{"lesson": 365, "episodic": 30}')
    monkeypatch.setenv("GRAPHMEM_ARCHIVE_BELOW_CONFIDENCE", '{"lesson": 0.2}')
    monkeypatch.setenv("GRAPHMEM_WORKING_TTL_S", "0")
    monkeypatch.setenv("GRAPHMEM_PURGE_AFTER_DAYS", "0")
    policy = LifecyclePolicy.from_settings(Settings())
    assert policy.working_ttl is None
    assert policy.purge_after is None
    assert policy.rule_for(MemoryKind.LESSON) == ArchiveRule(MemoryKind.LESSON, 365 * DAY, 0.2)
    assert policy.rule_for(MemoryKind.EPISODIC) == ArchiveRule(MemoryKind.EPISODIC, 30 * DAY, ARCHIVE_BELOW_CONFIDENCE)
    assert policy.rule_for(MemoryKind.SEMANTIC) is None


@pytest.mark.parametrize(("field", "value", "message"), [
    ("archive_after_days", {"episodic": 0}, "positive number of days"),
    ("archive_after_days", {"episodic": float("inf")}, "positive number of days"),
    ("archive_after_days", {"nonsense": 3}, "nonsense"),
    ("archive_below_confidence", {"episodic": 1.5}, "in \\(0, 1\\]"),
    ("archive_below_confidence", {"lesson": 0.4}, "does not archive"),
    ("working_ttl_s", -1, "greater than or equal"),
    ("purge_after_days", -1, "greater than or equal"),
])
def test_bad_lifecycle_settings_fail_loudly(field: str, value: object, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Settings.model_validate({field: value})


# --- the TTL the write path gives working memory ---------------------------------------------------------------
def test_a_working_memory_without_expiry_gets_the_ttl_and_an_explicit_one_is_kept() -> None:
    explicit = NOW + timedelta(minutes=5)
    drafts = [MemoryDraft(namespace="ns", kind=MemoryKind.WORKING, content="scratch: step 1"),
              MemoryDraft(namespace="ns", kind=MemoryKind.WORKING, content="scratch: step 2", expires_at=explicit),
              MemoryDraft(namespace="ns", kind=MemoryKind.SEMANTIC, content="Bob likes tea.")]
    vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    plan = plan_batch(drafts, vectors, existing_ids=set(), hash_hits={}, vector_hits={}, threshold=0.9,
                      dedupe=True, alpha=0.2, now=NOW, working_ttl=timedelta(hours=24))
    assert [m.expires_at for m in plan.creates] == [NOW + timedelta(hours=24), explicit, None]
    untimed = plan_batch(drafts, vectors, existing_ids=set(), hash_hits={}, vector_hits={}, threshold=0.9,
                         dedupe=True, alpha=0.2, now=NOW, working_ttl=None)
    assert [m.expires_at for m in untimed.creates] == [None, explicit, None]


# --- the worker's schedule and metrics ---------------------------------------------------------------------------
def test_next_due_after_a_run_and_sooner_after_a_failure() -> None:
    assert next_due(NOW, interval_s=3600, ok=True, retry_s=600) == NOW + timedelta(hours=1)
    assert next_due(NOW, interval_s=3600, ok=False, retry_s=600) == NOW + timedelta(minutes=10)
    assert next_due(NOW, interval_s=60, ok=False, retry_s=600) == NOW + timedelta(minutes=1)


def test_maintenance_metrics_count_runs_and_items() -> None:
    metrics = Metrics()
    metrics.observe_maintenance("lifecycle", "ok", {"expired": 2, "archived": 0, "purged": 1})
    metrics.observe_maintenance("lifecycle", "error", {})
    text = generate_latest(metrics.registry).decode()
    assert 'graphmem_maintenance_runs_total{job="lifecycle",outcome="ok"} 1.0' in text
    assert 'graphmem_maintenance_runs_total{job="lifecycle",outcome="error"} 1.0' in text
    assert 'graphmem_maintenance_items_total{item="expired",job="lifecycle"} 2.0' in text
    assert 'graphmem_maintenance_items_total{item="purged",job="lifecycle"} 1.0' in text
    assert 'item="archived"' not in text
