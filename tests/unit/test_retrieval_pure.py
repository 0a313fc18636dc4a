"""Fusion, expansion scoring, the formula and the result cache: pure functions."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graphmem.models import Memory, MemoryKind
from graphmem.retrieval.cache import NamespaceVersions, ResultCache
from graphmem.retrieval.candidates import from_statement
from graphmem.retrieval.candidates import memory_data as candidate_map
from graphmem.retrieval.expansion import Edge, ExpansionConfig, path_steps, seed_state, spread, spread_hop
from graphmem.retrieval.formula import FormulaWeights, formula_score, frequency, recency
from graphmem.retrieval.fusion import fuse, rrf, weighted
from graphmem.retrieval.ranking import scoring_fields
from graphmem.retrieval.types import Channel, Fusion
from graphmem.store.cypher import CypherLoader
from graphmem.store.records import memory_from_map

V, F = Channel.VECTOR, Channel.FULLTEXT


def test_rrf_rewards_agreement_and_respects_weights() -> None:
    fused = rrf({V: ["a", "b", "c"], F: ["b", "d"]}, {V: 1.0, F: 1.0})
    assert max(fused, key=fused.__getitem__) == "b"  # in both lists
    assert math.isclose(fused["a"], 1 / 61)
    heavy = rrf({V: ["a", "b"], F: ["b", "a"]}, {V: 2.0, F: 1.0})
    assert heavy["a"] > heavy["b"]


def test_weighted_fusion_normalises_each_channel() -> None:
    fused = weighted({V: {"a": 0.9, "b": 0.5}, F: {"b": 40.0, "c": 10.0}}, {V: 1.0, F: 0.5})
    assert fused == {"a": 1.0, "b": 0.5, "c": 0.0}


@pytest.mark.parametrize("method", list(Fusion))
def test_fuse_scales_the_best_to_one(method: Fusion) -> None:
    fused = fuse(method, {V: {"a": 0.9, "b": 0.8}, F: {"b": 3.0}}, {V: 1.0, F: 1.0})
    assert max(fused.values()) == 1.0
    assert fused["b"] == 1.0
    assert fuse(method, {}, {}) == {}


def edge(s: str, t: str, type_: str = "SUPPORTS", w: float = 1.0) -> Edge:
    return Edge(s, t, type_, w, s, t)


def test_spreading_activation_follows_edges_with_decay_and_paths() -> None:
    cfg = ExpansionConfig(hops=2, decay=0.5, degree_beta=0.0)
    state = spread({"s": 1.0}, [[edge("s", "a")], [edge("a", "b", "CAUSES")]], {}, cfg)
    assert math.isclose(state["a"].value, 0.9 * 0.5)
    assert math.isclose(state["b"].value, 0.9 * 0.5 * 0.8 * 0.5)
    assert [(p.source_id, p.type, p.target_id) for p in state["b"].path] == [("s", "SUPPORTS", "a"),
                                                                            ("a", "CAUSES", "b")]
    assert state["b"].seed == "s"
    assert state["s"].path == ()  # a seed is its own explanation


def test_edges_carry_activation_both_ways_and_hubs_are_damped() -> None:
    cfg = ExpansionConfig(hops=1, decay=1.0, degree_beta=1.0)
    state = spread({"s": 1.0}, [[edge("x", "s", "RELATES_TO"), edge("s", "y", "RELATES_TO")]], {"s": 4}, cfg)
    assert math.isclose(state["x"].value, 0.6 / 4)  # incoming edge walked backwards, degree 4 divides
    assert state["x"].path[0].source_id == "x"  # the path keeps the edge's real direction
    (step,) = path_steps(state["x"].path)
    assert (step.source_id, step.type, step.target_id, step.weight) == ("x", "RELATES_TO", "s", 1.0)
    assert path_steps([Edge("k1", "k2", "ABOUT", 1.0, "m1", None)])[0].target_id == "k2"  # no id: the key


def test_an_edge_listed_by_both_its_ends_passes_once_each_way() -> None:
    cfg = ExpansionConfig(hops=1, decay=1.0, degree_beta=0.0)
    both = edge("s", "t", "RELATES_TO")
    state = spread({"s": 1.0, "t": 0.5}, [[both, both]], {}, cfg)  # s and t both walked it
    assert math.isclose(state["t"].value, 0.5 + 1.0 * 0.6)
    assert math.isclose(state["s"].value, 1.0 + 0.5 * 0.6)


def test_an_edge_passes_only_from_the_ends_that_walked_it() -> None:
    cfg = ExpansionConfig(hops=1, decay=1.0, degree_beta=0.0)
    st = edge("s", "t", "RELATES_TO")
    state = seed_state({"s": 1.0, "t": 0.5})
    got = spread_hop(state, {"s": 1.0, "t": 0.5}, [("s", st), ("s", st)], {}, cfg, 1)  # t did not walk it
    assert got == {"t": pytest.approx(0.6)}  # listed twice, passed once, and not back to s
    assert math.isclose(state["s"].value, 1.0)
    state = seed_state({"s": 1.0, "t": 0.5})
    got = spread_hop(state, {"s": 1.0, "t": 0.5}, [("t", st)], {}, cfg, 1)  # walked from its target
    assert got == {"s": pytest.approx(0.3)}
    assert state["s"].path == ()  # a seed keeps no path


def test_statement_rows_become_candidates_with_ranks_paths_and_cosines() -> None:
    rows: list[dict[str, Any]] = [
        {"memory": {"id": "a", "content": "x", "tags": None}, "score": 0.9, "fused": 1.0, "received": 0.1,
         "path": [], "seed_id": None, "seed_cosine": None},
        {"memory": {"id": "b", "content": "y"}, "score": None, "fused": 0.0, "received": 0.3,
         "path": [{"source_id": "a", "target_id": "b", "type": "CAUSES", "weight": 0.5}], "seed_id": "a",
         "seed_cosine": 0.8},
        {"memory": {"id": "c", "content": "z"}, "score": 0.5, "fused": 0.4, "received": 0.0,
         "path": [], "seed_id": None, "seed_cosine": None},
    ]
    seeds = [  # every seed, also one the statement did not return among the best
        {"id": "a", "hits": [{"channel": "fulltext", "score": 2.0, "rank": 2}, {"channel": "vector", "score": 0.9,
                                                                               "rank": 1}]},
        {"id": "c", "hits": [{"channel": "fulltext", "score": 3.0, "rank": 1}]},
        {"id": "d", "hits": [{"channel": "vector", "score": 0.7, "rank": 2}]},
    ]
    found, scores = from_statement(rows, seeds)
    assert list(scores[F]) == ["c", "a"]  # in rank order, whatever the row order
    assert scores[V] == {"a": 0.9, "d": 0.7}
    assert "d" not in found
    assert found["b"].seed_cosine == 0.8
    assert found["a"].seed_cosine is None
    assert found["a"].cosine == pytest.approx(0.8)  # (1 + cos) / 2 back to the cosine
    assert found["b"].cosine == 0.0  # no embedding
    assert "tags" not in found["a"].data  # null: absent, the model's default applies
    assert [(p.source_id, p.type, p.target_id, p.weight) for p in found["b"].path] == [("a", "CAUSES", "b", 0.5)]
    assert (found["b"].seed_id, found["b"].received, found["c"].fused) == ("a", 0.3, 0.4)


def test_unknown_edge_types_and_zero_weights_carry_nothing() -> None:
    state = spread({"s": 1.0}, [[edge("s", "a", "MYSTERY"), edge("s", "b", "SUPPORTS", 0.0)]], {},
                   ExpansionConfig(hops=1))
    assert "a" not in state
    assert "b" not in state


def test_formula_parts() -> None:
    now = datetime(2026, 1, 31, tzinfo=UTC)
    w = FormulaWeights(similarity=0.6, recency=0.2, frequency=0.1, confidence=0.1, fused=0.0, graph=0.0, time=0.0)
    assert recency(now, now, 30) == 1.0
    assert math.isclose(recency(now - timedelta(days=30), now, 30), 0.5)
    assert frequency(0, 100) == 0.0
    assert frequency(1000, 100) == 1.0
    score, rec, freq = formula_score(0.8, now - timedelta(days=30), 0, 0.5, now, w)
    assert math.isclose(score, 0.6 * 0.8 + 0.2 * 0.5 + 0.0 + 0.1 * 0.5)
    assert math.isclose(rec, 0.5)
    assert freq == 0.0
    newer, _, _ = formula_score(0.8, now, 0, 0.5, now, w)
    assert newer > score


def test_formula_graph_fused_and_time_terms() -> None:
    now = datetime(2026, 1, 31, tzinfo=UTC)
    w = FormulaWeights(similarity=0.6, fused=0.2, graph=0.5, time=0.1, recency=0.0, frequency=0.0, confidence=0.0)
    plain, _, _ = formula_score(0.5, now, 0, 1.0, now, w)
    assert math.isclose(plain, 0.3)
    seeded, _, _ = formula_score(0.5, now, 0, 1.0, now, w, fused=1.0)
    assert math.isclose(seeded - plain, 0.2)
    walked, _, _ = formula_score(0.5, now, 0, 1.0, now, w, received=0.4)
    assert math.isclose(walked - plain, 0.2)
    capped, _, _ = formula_score(0.5, now, 0, 1.0, now, w, received=7.0)
    assert math.isclose(capped - plain, 0.5)  # received activation counts up to 1
    dated, _, _ = formula_score(0.5, now, 0, 1.0, now, w, in_time=True)
    assert math.isclose(dated - plain, 0.1)
    # a memory reached only over edges, less similar, can outrank a seed
    assert formula_score(0.4, now, 0, 1.0, now, w, received=0.5)[0] > formula_score(0.5, now, 0, 1.0, now, w)[0]


def test_cache_invalidated_by_a_write_to_its_namespace_only() -> None:
    versions = NamespaceVersions()
    cache: ResultCache[str] = ResultCache(versions, ttl_s=60)
    cache.put(("q",), ["a", "b"], "result")
    assert cache.get(("q",), ["a", "b"]) == "result"
    versions.bump("c")
    assert cache.get(("q",), ["a", "b"]) == "result"
    versions.bump("b")
    assert cache.get(("q",), ["a", "b"]) is None
    cache.put(("q",), ["a"], "again")
    versions.bump(None)  # a write to every namespace (sweep)
    assert cache.get(("q",), ["a"]) is None


def test_cache_ttl_and_size() -> None:
    cache: ResultCache[int] = ResultCache(NamespaceVersions(), maxsize=2, ttl_s=0.0)
    cache.put(("a",), ["n"], 1)
    assert cache.get(("a",), ["n"]) is None  # expired at once
    cache = ResultCache(NamespaceVersions(), maxsize=2, ttl_s=60)
    for i in range(3):
        cache.put((i,), ["n"], i)
    assert cache.get((0,), ["n"]) is None
    assert cache.get((2,), ["n"]) == 2


@pytest.mark.parametrize("name", ["retrieval/candidates", "retrieval/search"])
def test_candidates_projection_names_every_memory_field(name: str) -> None:
    projection = CypherLoader()(name)
    named = set(re.findall(r"\.(\w+)", projection)) | set(re.findall(r"(\w+): toString", projection))
    stored = {"metadata_json" if f == "metadata" else f for f in Memory.model_fields} - {"integrity"}  # a verdict
    assert stored - named == set(), f"a Memory field missing from cypher/{name}.cypher"


def test_candidate_maps_read_iso_datetimes_and_treat_null_as_absent() -> None:
    row = {"id": "m1", "namespace": "ns", "kind": "semantic", "content": "Dave lives in Berlin.",
           "created_at": "2026-01-02T03:04:05.123456Z", "updated_at": "2026-01-02T05:04:05.12+02:00",
           "valid_from": None, "expires_at": None, "access_count": None, "importance": None, "tags": None,
           "metadata_json": '{"a": "b"}'}
    memory = memory_from_map(candidate_map(row))
    assert memory.created_at == datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    assert memory.updated_at == datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=UTC)
    assert memory.updated_at.utcoffset() == timedelta(hours=2)  # the stored offset is kept
    assert (memory.kind, memory.valid_from, memory.access_count, memory.importance) == (
        MemoryKind.SEMANTIC, None, 0, 0.5)  # absent on the node: the model's defaults
    assert memory.metadata == {"a": "b"}
    now = datetime(2026, 2, 1, tzinfo=UTC)
    assert scoring_fields(candidate_map(row), now) == (memory.created_at, memory.access_count, memory.confidence)
    assert scoring_fields({"access_count": 3, "confidence": 0.4}, now) == (now, 3, 0.4)
