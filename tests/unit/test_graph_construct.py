"""Graph construction on write (pure part): entity, SIMILAR_TO and FOLLOWS rows."""

from __future__ import annotations

from datetime import UTC, datetime

from graphmem.graph.construct import GraphOptions, Neighbour, content_entities, graph_rows, similar_pairs
from graphmem.models import Memory, MemoryKind

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def memory(mid: str, content: str, kind: MemoryKind = MemoryKind.EPISODIC) -> Memory:
    return Memory(id=mid, namespace="ns", kind=kind, content=content, created_at=NOW)


def test_similar_pairs_take_the_nearest_above_the_threshold_from_store_and_earlier_batch() -> None:
    vectors = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]
    stored = {0: [Neighbour("old", 0.95), Neighbour("far", 0.2)], 2: [Neighbour("c", 0.7)]}
    pairs = similar_pairs(vectors, stored, ["a", "b", "c"], k=3, min_cosine=0.6)
    assert (0, "old", 0.95) in pairs
    assert all(t != "far" for _, t, _ in pairs)  # below the threshold
    assert [(i, t) for i, t, _ in pairs if i == 1] == [(1, "a")]  # the earlier memory of the batch
    assert not [p for p in pairs if p[0] == 2]  # its only neighbour is itself
    assert not [p for p in pairs if p[0] == 0 and p[1] == "b"]  # edges go to earlier memories only


def test_similar_pairs_keep_k_best() -> None:
    stored = {0: [Neighbour(f"m{i}", 0.9 - i / 100) for i in range(10)]}
    pairs = similar_pairs([[1.0, 0.0]], stored, ["a"], k=2, min_cosine=0.5)
    assert [t for _, t, _ in pairs] == ["m0", "m1"]
    assert similar_pairs([[1.0, 0.0]], stored, ["a"], k=0, min_cosine=0.5) == []


def test_graph_rows_follows_only_for_episodic_memories_of_a_task() -> None:
    created = [memory("a", "We went camping near the lake."), memory("b", "A fact.", MemoryKind.SEMANTIC),
               memory("c", "No task here.")]
    rows = graph_rows(created, [[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [(), (), ()], ["t1", "t1", None], {},
                      GraphOptions(), NOW)
    assert [r["memory_id"] for r in rows.follow_rows] == ["a"]
    off = graph_rows(created, [[1.0, 0.0], [0.0, 1.0], [0.0, -1.0]], [(), (), ()], ["t1", "t1", None], {},
                     GraphOptions(follows=False, entities=False), NOW)
    assert off.follow_rows == []
    assert off.entity_rows == []


def test_content_entities_skip_what_the_caller_named() -> None:
    found = dict(content_entities("Caroline went to the pottery class with Melanie.", ["Caroline"], 8))
    assert "caroline" not in found
    assert "melanie" in found
    assert content_entities("Caroline went hiking.", [], 0) == []
    # the extractor reads a turn's "James:" as the plural "jame"; the caller's speaker "James" is the same name
    assert next(n for n, _ in content_entities("James: we hiked the ridge with Charles", [], 8)) == "jame"
    opened = dict(content_entities("James: we hiked the ridge with Charles", ["James"], 8))
    assert "jame" not in opened
    assert "james" not in opened
    assert "charles" in opened


def test_graph_rows_entities_carry_kind_and_namespace() -> None:
    rows = graph_rows([memory("a", "Melanie painted a sunset at the beach.")], [[1.0, 0.0]], [()], [None], {},
                      GraphOptions(), NOW)
    names = {r["name"] for r in rows.entity_rows}
    assert "melanie" in names
    assert all(r["namespace"] == "ns" and r["memory_id"] == "a" and r["kind"] for r in rows.entity_rows)


def test_stored_names_in_normal_form_are_left_and_the_others_merged() -> None:
    from graphmem.graph.entities import normalise_name
    from graphmem.graph.rebuild import in_normal_form

    for key in ("caroline", "pottery class", "pottery classes", "new york city", "咖啡店"):  # keys as stored
        assert in_normal_form(key), key
    for legacy, merged_into in (("Caroline", "caroline"), ("Caroline's", "caroline"), ("Pottery Classes",
                                "pottery classes"), ("  Boston   trip ", "boston trip"), ("refunds!", "refund")):
        assert not in_normal_form(legacy), legacy
        assert normalise_name(legacy) == merged_into
        assert in_normal_form(merged_into)  # one merge is enough: the key it gets is left alone after
