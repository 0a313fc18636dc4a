"""The LoCoMo retrieval evaluation end to end: one sample cut to its first two sessions, on the real Neo4j."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ConfigError
from graphmem.eval.corpus import DEFAULT_CORPUS, corpus_plan
from graphmem.eval.locomo import ensure_imported, eval_namespace, evaluate, restrict_sample
from graphmem.importers.locomo import load_locomo
from graphmem.service import MemoryService
from graphmem.store import Store

LOCOMO = Path(os.environ.get("GRAPHMEM_LOCOMO_PATH",
                             Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"))
KS = (5, 10, 20)


def test_restrict_sample_keeps_questions_answered_in_the_kept_sessions() -> None:
    sample = load_locomo(LOCOMO)[0]
    small = restrict_sample(sample, 2)
    kept = {t.dia_id for t in small.turns}
    assert len(small.sessions) == 2
    assert small.questions
    assert all(q.evidence and set(q.evidence) <= kept for q in small.questions)
    dropped = [q for q in sample.questions if q not in small.questions]
    assert all(not q.evidence or not set(q.evidence) <= kept for q in dropped)


async def test_locomo_eval_on_two_sessions(migrated: Settings, embedder: Embedder, store: Store,
                                           service: MemoryService) -> None:
    sample = load_locomo(LOCOMO)[0]
    small = restrict_sample(sample, 2)
    namespace = eval_namespace(sample.sample_id, 2)
    try:
        report = await evaluate(migrated, LOCOMO, samples=[sample.sample_id], sessions=2, modes=("vector", "fused"),
                                ks=KS, reimport=True, embedder=embedder)
        # a complete namespace is not imported again
        again = await ensure_imported(service, corpus_plan(small, namespace, DEFAULT_CORPUS), reimport=False)
    finally:
        await store.wipe_namespace(namespace)

    assert again["imported"] is False
    assert report["samples"] == [sample.sample_id]
    assert report["imports"][0]["namespace"] == namespace
    assert report["imports"][0]["imported"] is True
    assert report["modes"] == ["vector", "fused"]
    assert report["ks"] == list(KS)
    questions = report["questions"]
    assert questions["total"] == len(small.questions)
    scored = questions["total"] - questions["excluded_without_evidence"]["total"]
    assert report["unmatched_evidence"]["count"] == 0  # every kept question's evidence is a kept turn
    assert report["retrieved_memories_reaching_no_turn"] == 0  # every imported memory derives from turns
    assert report["integrity_failures"] == 0

    for mode in ("vector", "fused"):
        result = report["results"][mode]
        table = result["by_category"]
        assert "all" in table
        assert sum(s["n"] for c, s in table.items() if c != "all") == scored
        assert table["all"]["n"] == sum(s["n"] for c, s in table.items() if c in {"1", "2", "3", "4"})
        for cat, s in table.items():
            recalls = [s[f"recall@{k}"] for k in KS]
            assert all(0.0 <= r <= 1.0 for r in recalls), (mode, cat, s)
            assert recalls == sorted(recalls), f"{mode} cat {cat}: recall must not drop as k grows"
            assert 0.0 <= s["mrr"] <= 1.0
        assert result["rerank_used"] == {"none": scored}
        for stage in ("total", "wall"):
            lat = result["latency_ms"][stage]
            assert lat["n"] == scored
            assert 0.0 <= lat["p50"] <= lat["p95"]

    assert report["results"]["vector"]["by_category"]["all"]["recall@20"] > 0.0, report["results"]["vector"]


async def test_locomo_eval_turns_corpus_with_two_passes_records_accesses(migrated: Settings, embedder: Embedder,
                                                                          store: Store) -> None:
    sample = load_locomo(LOCOMO)[0]
    namespace = eval_namespace(sample.sample_id, 1) + "-turns"
    try:
        report = await evaluate(migrated, LOCOMO, samples=[sample.sample_id], sessions=1, modes=("formula",),
                                ks=KS, reimport=True, embedder=embedder, corpus="turns", passes=2)
        counts = await store.read("test/access_counts", namespace=namespace)
    finally:
        await store.wipe_namespace(namespace)
    assert report["imports"][0]["namespace"] == namespace
    assert report["corpus"] == "turns"
    assert report["access_recording"] is True
    result = report["results"]["formula"]
    assert len(result["passes"]) == 2
    assert result["passes"][0] == {k: v for k, v in result["by_category"]["all"].items()}
    n = result["by_category"]["all"]["n"]
    # two passes, each search a use of its first 3 results (never a cache hit: every pass asks anew)
    assert counts[0]["total"] == 2 * 3 * n
    assert counts[0]["kinds"] == ["episodic"]  # the turns corpus holds no facts


async def test_locomo_eval_under_another_key_refuses_and_says_why(migrated: Settings, embedder: Embedder,
                                                                 store: Store) -> None:
    """A corpus imported under one signing key and evaluated under another: every memory fails verification and
    would be hidden, so the evaluation refuses to score zeros and says what to do."""
    sample = load_locomo(LOCOMO)[0]
    namespace = eval_namespace(sample.sample_id, 1) + "-turns"
    other = migrated.model_copy(update={"signing_keys": SecretStr(f"other:{secrets.token_urlsafe(24)}")})
    try:
        await evaluate(migrated, LOCOMO, samples=[sample.sample_id], sessions=1, modes=("vector",), ks=KS,
                       reimport=True, embedder=embedder, corpus="turns")
        with pytest.raises(ConfigError, match=rf"{namespace}: \d+ stored memories fail verification"):
            await evaluate(other, LOCOMO, samples=[sample.sample_id], sessions=1, modes=("vector",), ks=KS,
                           embedder=embedder, corpus="turns")
    finally:
        await store.wipe_namespace(namespace)
