"""Importers: LoCoMo parsing and planning on the real development split, and JSON Lines drafts."""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import graphmem.importers
from graphmem.errors import ValidationError
from graphmem.importers import (
    ImportPlan,
    LocomoSample,
    load_locomo,
    locomo_namespace,
    malformed_evidence,
    memory_evidence,
    parse_evidence_ids,
    parse_jsonl,
    parse_session_datetime,
    plan_locomo,
    read_jsonl,
    split_evidence,
    stable_id,
    turn_memory_ids,
)
from graphmem.models import MemoryKind, Role, TaskStatus, check_namespace

DEFAULT_LOCOMO = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo" / "locomo-dev.json"


def _locomo_path() -> Path:
    path = Path(os.environ.get("GRAPHMEM_LOCOMO_PATH") or DEFAULT_LOCOMO)
    if not path.is_file():
        pytest.fail(f"LoCoMo dev split not found at {path} (set GRAPHMEM_LOCOMO_PATH)")
    return path


@pytest.fixture(scope="module")
def raw_samples() -> list[dict[str, Any]]:
    data = json.loads(_locomo_path().read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


@pytest.fixture(scope="module")
def samples() -> list[LocomoSample]:
    return load_locomo(_locomo_path())


@pytest.fixture(scope="module")
def plans(samples: list[LocomoSample]) -> list[ImportPlan]:
    return [plan_locomo(s) for s in samples]


# ------------------------------------------------------------------------------------ public surface


def test_public_surface() -> None:
    assert set(graphmem.importers.__all__) == {
        "ImportPlan", "LocomoObservation", "LocomoQuestion", "LocomoSample", "LocomoSession", "LocomoTurn",
        "load_locomo", "locomo_namespace", "malformed_evidence", "memory_evidence", "parse_evidence_ids",
        "parse_jsonl", "parse_sample", "parse_session_datetime", "plan_locomo", "read_jsonl", "split_evidence",
        "stable_id", "turn_memory_ids",
    }  # fmt: skip


def test_stable_id_is_uuid5_hex_and_deterministic() -> None:
    a = stable_id("ns", "turn", "D1:1")
    assert a == stable_id("ns", "turn", "D1:1")
    assert len(a) == 32
    assert int(a, 16) >= 0
    assert a != stable_id("ns", "turn", "D1:2")
    assert stable_id("a/b") == stable_id("a", "b")  # documented: parts are joined with "/"


# ------------------------------------------------------------------------------------ small parsers


@pytest.mark.parametrize(
    ("raw", "ids", "bad"),
    [
        ("D8:6; D9:17", ["D8:6", "D9:17"], []),
        ("D9:1 D4:4 D4:6", ["D9:1", "D4:4", "D4:6"], []),
        ("D26:14, D26:34", ["D26:14", "D26:34"], []),
        ("D:11:26", ["D11:26"], []),
        (["D1:18", "D", "D1:20"], ["D1:18", "D1:20"], ["D"]),
        (["D15:3", "D15:5"], ["D15:3", "D15:5"], []),
        ("D03:07,D3:7", ["D3:7"], []),
        ("", [], []),
        ("11:26 Dx:1", [], ["11:26", "Dx:1"]),
    ],
)
def test_split_evidence(raw: str | list[str], ids: list[str], bad: list[str]) -> None:
    assert split_evidence(raw) == (ids, bad)
    assert parse_evidence_ids(raw) == ids
    assert malformed_evidence(raw) == bad


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:06 am on 11 November, 2022", datetime(2022, 11, 11, 0, 6, tzinfo=UTC)),
        ("12:30 pm on 1 January, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=UTC)),
        ("9:05 AM on 30 Sept 2021", datetime(2021, 9, 30, 9, 5, tzinfo=UTC)),
    ],
)
def test_parse_session_datetime(text: str, expected: datetime) -> None:
    assert parse_session_datetime(text) == expected


@pytest.mark.parametrize("text", ["", "8 May, 2023", "13:00 pm on 8 May, 2023", "1:00 pm on 31 February, 2023"])
def test_parse_session_datetime_rejects(text: str) -> None:
    with pytest.raises(ValidationError, match="date time"):
        parse_session_datetime(text)


# ------------------------------------------------------------------------------------ the dev split


def test_dev_split_counts(samples: list[LocomoSample]) -> None:
    assert [s.sample_id for s in samples] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    assert sum(len(s.turns) for s in samples) == 2760
    assert sum(len(s.sessions) for s in samples) == 128
    assert sum(len(s.observations) for s in samples) == 1210
    questions = [q for s in samples for q in s.questions]
    assert len(questions) == 999
    assert Counter(q.category for q in questions) == {1: 142, 2: 156, 3: 46, 4: 418, 5: 237}
    # every question has an answer text; category 5 falls back to adversarial_answer
    assert all(q.answer for q in questions)
    assert all(q.adversarial_answer is not None for q in questions if q.category == 5)


def test_every_session_date_parses(raw_samples: list[dict[str, Any]], samples: list[LocomoSample]) -> None:
    texts = [v for s in raw_samples for k, v in s["conversation"].items() if k.endswith("_date_time")]
    assert len(texts) == 144  # 128 sessions with turns + 16 dates of conv-26 with no turns
    assert all(parse_session_datetime(t).tzinfo is UTC for t in texts)
    for s in samples:
        starts = [session.started_at for session in s.sessions]
        assert starts == sorted(starts), s.sample_id
        assert [session.number for session in s.sessions] == list(range(1, len(s.sessions) + 1))
    assert [len(s.unused_session_dates) for s in samples] == [16, 0, 0, 0, 0]


def test_malformed_question_evidence_is_split_and_counted(samples: list[LocomoSample]) -> None:
    by_id = {s.sample_id: s for s in samples}
    evidence = [q.evidence for q in by_id["conv-26"].questions]
    assert ("D8:6", "D9:17") in evidence  # was "D8:6; D9:17"
    assert any("D11:26" in e for e in (q.evidence for q in by_id["conv-43"].questions))  # was "D:11:26"
    # "D" is not an id; D10:19 is well formed but session 10 of conv-42 has 16 turns
    assert by_id["conv-42"].unmatched_question_evidence() == ("D10:19", "D")
    assert sum(len(s.unmatched_question_evidence()) for s in samples) == 2


def test_turn_images_and_speakers(samples: list[LocomoSample]) -> None:
    s = samples[0]
    turn = next(t for t in s.turns if t.dia_id == "D1:5")
    assert turn.content.endswith("[shares an image: a photo of a dog walking past a wall with a painting of a woman]")
    assert {t.speaker for t in s.turns} == {s.speaker_a, s.speaker_b} == {"Caroline", "Melanie"}


# ------------------------------------------------------------------------------------ plans


def test_plan_counts_and_shape(samples: list[LocomoSample], plans: list[ImportPlan]) -> None:
    for sample, plan in zip(samples, plans, strict=True):
        counts = plan.counts()
        assert plan.namespace == f"locomo-{sample.sample_id}" == check_namespace(plan.namespace)
        assert counts["tasks"] == len(sample.sessions)
        assert counts["turns"] == counts["episodic"] == len(sample.turns)
        assert counts["semantic"] == len(sample.observations)
        assert plan.entities == (sample.speaker_a, sample.speaker_b)
        assert all(t.status is TaskStatus.ENDED and t.agent == "locomo" for t in plan.tasks)
        assert all(t.ended_at is not None and t.ended_at >= t.started_at for t in plan.tasks)
        roles = {t.speaker: t.role for t in plan.turns}
        assert roles == {sample.speaker_a: Role.USER, sample.speaker_b: Role.ASSISTANT}
        assert all(m.namespace == plan.namespace for m in plan.memories)
    assert sum(p.counts()["turns"] for p in plans) == 2760


def test_plan_ids_deterministic_and_unique(samples: list[LocomoSample], plans: list[ImportPlan]) -> None:
    again = [plan_locomo(s) for s in load_locomo(_locomo_path())]
    assert again == plans
    ids: list[str | None] = [t.id for p in plans for t in p.tasks]
    ids += [t.id for p in plans for t in p.turns]
    ids += [m.id for p in plans for m in p.memories]
    assert all(isinstance(i, str) and len(i) == 32 for i in ids)
    assert len(ids) == len(set(ids))
    assert plan_locomo(samples[0], namespace="other").memories[0].id != plans[0].memories[0].id


def test_plan_links(plans: list[ImportPlan]) -> None:
    for plan in plans:
        turn_ids = {t.id for t in plan.turns}
        task_ids = {t.id for t in plan.tasks}
        assert {t.task_id for t in plan.turns} == task_ids
        for m in plan.memories:
            assert set(m.derived_from) <= turn_ids, m.id
            if m.summary_of is not None:  # a session's summary: from all its turns, linked by summary_of
                assert m.task_id is None
                assert m.summary_of in task_ids
                assert m.source == "summary:locomo"
                assert set(m.derived_from) == {t.id for t in plan.turns if t.task_id == m.summary_of}
                continue
            assert m.task_id in task_ids
            if m.kind is MemoryKind.SEMANTIC:
                assert m.source == "locomo-observation"
                assert len(m.derived_from) == len(m.metadata["evidence"].split(","))
            else:
                assert m.kind is MemoryKind.EPISODIC
                assert len(m.derived_from) == 1
    assert sum(len(p.unmatched_evidence) for p in plans) == 0  # all observation evidence names a turn


def test_evaluation_maps(samples: list[LocomoSample], plans: list[ImportPlan]) -> None:
    for sample, plan in zip(samples, plans, strict=True):
        by_dia = turn_memory_ids(plan)
        assert set(by_dia) == {t.dia_id for t in sample.turns}
        reach = memory_evidence(plan)
        assert set(reach) == {m.id for m in plan.memories if m.summary_of is None}  # a summary is no evidence
        assert all(reach[mem_id] == (dia,) for dia, mem_id in by_dia.items())
        for m in plan.memories:
            if m.kind is MemoryKind.SEMANTIC:
                assert reach[m.id or ""] == tuple(m.metadata["evidence"].split(","))


def test_session_summaries_are_the_tasks_summaries(samples: list[LocomoSample], plans: list[ImportPlan]) -> None:
    for sample, plan in zip(samples, plans, strict=True):
        summaries = [m for m in plan.memories if m.summary_of is not None]
        with_summary = [s for s in sample.sessions if s.summary]
        assert with_summary
        assert len(summaries) == len(with_summary) == plan.counts()["summaries"]
        assert len({m.summary_of for m in summaries}) == len(summaries)  # one per task
        by_task = {t.id: t for t in plan.tasks}
        for m, session in zip(summaries, with_summary, strict=True):
            assert m.kind is MemoryKind.EPISODIC
            assert m.content == " ".join((session.summary or "").split())
            assert m.created_at == by_task[m.summary_of or ""].started_at == session.started_at
        bare = plan_locomo(sample, namespace=plan.namespace, summaries=False)
        assert [m for m in bare.memories if m.summary_of is not None] == []
        assert len(bare.memories) == len(plan.memories) - len(summaries)


def test_plan_rejects_bad_namespace(samples: list[LocomoSample]) -> None:
    with pytest.raises(ValidationError, match="namespace"):
        plan_locomo(samples[0], namespace="Bad Namespace")
    assert locomo_namespace("Conv 26/X") == "locomo-conv-26-x"


def test_load_locomo_names_the_bad_sample(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"conversation": {}}]), encoding="utf-8")
    with pytest.raises(ValidationError, match="sample_id") as info:
        load_locomo(path)
    assert info.value.item == 1
    path.write_text("[{", encoding="utf-8")
    with pytest.raises(ValidationError, match="invalid JSON"):
        load_locomo(path)


# ------------------------------------------------------------------------------------ JSON Lines

GOOD = [
    "# memories for the demo",
    "",
    '{"namespace": "demo", "kind": "semantic", "content": "Paris is in France", "tags": ["geo"]}',
    '{"kind": "episodic", "content": "met Ana", "entities": ["Ana"], "created_at": "2024-01-02T03:04:05Z"}',
    "   ",
    '{"kind": "lesson", "content": "retry on 503", "id": "l1", "metadata": {"why": "flaky"}}',
]


def test_jsonl_good_lines(tmp_path: Path) -> None:
    drafts = parse_jsonl(GOOD, default_namespace="fallback")
    assert [d.namespace for d in drafts] == ["demo", "fallback", "fallback"]
    assert [d.kind for d in drafts] == [MemoryKind.SEMANTIC, MemoryKind.EPISODIC, MemoryKind.LESSON]
    assert drafts[1].created_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert drafts[1].entities == ("Ana",)
    assert drafts[2].id == "l1"
    assert drafts[2].metadata == {"why": "flaky"}
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    assert read_jsonl(path, default_namespace="fallback") == drafts


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"kind": "semantic", "content": ', "invalid JSON"),
        ('["semantic", "x"]', "expected a JSON object, got list"),
        ('{"kind": "semantic", "content": "x", "colour": "red"}', "unknown field(s) 'colour'"),
        ('{"kind": "bogus", "content": "x"}', "kind"),
        ('{"kind": "semantic", "content": "   "}', "content is blank"),
        ('{"kind": "semantic", "content": "x", "confidence": 2}', "confidence"),
        ('{"namespace": "Not Valid", "kind": "semantic", "content": "x"}', "namespace"),
    ],
)
def test_jsonl_bad_line_names_its_number(bad: str, message: str) -> None:
    lines = [*GOOD[:3], bad, GOOD[3]]
    with pytest.raises(ValidationError) as info:
        parse_jsonl(lines, default_namespace="fallback")
    assert info.value.item == 4
    assert str(info.value).startswith("line 4: ")
    assert message in str(info.value)


def test_jsonl_missing_namespace_without_default() -> None:
    with pytest.raises(ValidationError, match="namespace") as info:
        parse_jsonl(['{"kind": "semantic", "content": "x"}'])
    assert info.value.item == 1
    assert info.value.field == "namespace"
    with pytest.raises(ValidationError, match="default namespace"):
        parse_jsonl([], default_namespace="Bad!")
