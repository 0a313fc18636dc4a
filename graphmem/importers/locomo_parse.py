"""Reading LoCoMo conversations (snap-research/LoCoMo ``locomo10.json`` format) into frozen dataclasses: samples,
sessions, turns, observations and questions, with evidence ids and session date times parsed on the way.

The data gives times without a zone; they are read as UTC. Evidence ids are normalised (see ``split_evidence``);
malformed ones are kept apart, never dropped silently. ``ValidationError`` names the first thing that does not fit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.errors import ValidationError

_EVIDENCE_RE = re.compile(r"D:?(\d+):(\d+)")
_SPLIT_RE = re.compile(r"[;,\s]+")
_DATE_RE = re.compile(
    r"(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>[ap])\.?\s*m\.?\s+on\s+(?P<d>\d{1,2})\s+(?P<month>[a-z]+)\.?,?\s+(?P<y>\d{4})",
    re.IGNORECASE,
)
_MONTHS = {
    m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)
}
_SESSION_RE = re.compile(r"session_(\d+)")
_SESSION_DATE_RE = re.compile(r"session_(\d+)_date_time")
_OBSERVATION_RE = re.compile(r"session_(\d+)_observation")
_SUMMARY_RE = re.compile(r"session_(\d+)_summary")


# --- small parsers ---------------------------------------------------------------------------------------


def split_evidence(raw: str | Iterable[str]) -> tuple[list[str], list[str]]:
    """``(ids, malformed)``: ``raw`` split on ``;``, ``,`` and whitespace; ids normalised to ``D<session>:<turn>``.

    ``D:11:26`` becomes ``D11:26`` and ``D03:7`` becomes ``D3:7``; ids keep their first-seen order, without
    repeats. Tokens of any other shape (``D``, ``11:26``) are returned verbatim in ``malformed``.
    """
    tokens = _SPLIT_RE.split(raw) if isinstance(raw, str) else [t for item in raw for t in _SPLIT_RE.split(item)]
    ids: dict[str, None] = {}
    malformed: list[str] = []
    for token in tokens:
        if not token:
            continue
        match = _EVIDENCE_RE.fullmatch(token)
        if match:
            ids[f"D{int(match[1])}:{int(match[2])}"] = None
        else:
            malformed.append(token)
    return list(ids), malformed


def parse_evidence_ids(raw: str | list[str]) -> list[str]:
    """The well-formed, normalised ids of ``raw``; ``malformed_evidence`` gives the rest."""
    return split_evidence(raw)[0]


def malformed_evidence(raw: str | list[str]) -> list[str]:
    """The tokens of ``raw`` that are no evidence id, verbatim."""
    return split_evidence(raw)[1]


def parse_session_datetime(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> 2023-05-08 13:56 UTC (``12:xx am`` is just after midnight)."""
    match = _DATE_RE.fullmatch(text.strip())
    month = _MONTHS.get(match["month"][:3].lower()) if match and len(match["month"]) >= 3 else None
    if match is None or month is None:
        raise ValidationError(f"unrecognised session date time {text!r}", field="date_time")
    hour = int(match["h"])
    if not 1 <= hour <= 12:
        raise ValidationError(f"hour out of range in session date time {text!r}", field="date_time")
    hour = hour % 12 + (12 if match["ampm"].lower() == "p" else 0)
    try:
        return datetime(int(match["y"]), month, int(match["d"]), hour, int(match["m"]), tzinfo=UTC)
    except ValueError as exc:
        raise ValidationError(f"invalid session date time {text!r}: {exc}", field="date_time") from None


# --- the parsed sample -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LocomoTurn:
    dia_id: str
    session: int
    seq: int
    """0-based position in the session."""
    speaker: str
    text: str
    image_caption: str | None = None
    """BLIP caption of the image shared in this turn (some turns have a caption but no ``img_url``)."""

    @property
    def content(self) -> str:
        """The text, with the shared image described: ``... [shares an image: <caption>]``."""
        parts = [self.text.strip()]
        if self.image_caption:
            parts.append(f"[shares an image: {self.image_caption.strip()}]")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class LocomoObservation:
    session: int
    speaker: str
    index: int
    """0-based position in the speaker's list for this session."""
    fact: str
    evidence: tuple[str, ...]
    malformed_evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class LocomoSession:
    number: int
    started_at: datetime
    turns: tuple[LocomoTurn, ...]
    observations: tuple[LocomoObservation, ...]
    summary: str | None = None
    """The dataset's ``session_<n>_summary``: imported as the summary of the session's task."""


@dataclass(frozen=True)
class LocomoQuestion:
    question: str
    answer: str
    """``answer`` (as text: a few are numbers); if absent, ``adversarial_answer``; else ``""``."""
    evidence: tuple[str, ...]
    category: int
    """1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial (papers disagree on 1-4's names)."""
    adversarial_answer: str | None = None
    malformed_evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class LocomoSample:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: tuple[LocomoSession, ...]
    questions: tuple[LocomoQuestion, ...]
    unused_session_dates: tuple[tuple[int, datetime], ...] = ()
    """``session_N_date_time`` entries with no ``session_N`` turns (conv-26 has 16 of them)."""

    @property
    def turns(self) -> tuple[LocomoTurn, ...]:
        return tuple(t for s in self.sessions for t in s.turns)

    @property
    def observations(self) -> tuple[LocomoObservation, ...]:
        return tuple(o for s in self.sessions for o in s.observations)

    def unmatched_question_evidence(self) -> tuple[str, ...]:
        """Evidence ids of the questions that name no turn (malformed tokens included), one entry per use."""
        known = {t.dia_id for t in self.turns}
        out: list[str] = []
        for q in self.questions:
            out.extend(e for e in q.evidence if e not in known)
            out.extend(q.malformed_evidence)
        return tuple(out)


# --- reading ---------------------------------------------------------------------------------------------


def _want(value: Any, kind: type, where: str) -> Any:
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise ValidationError(f"{where}: expected {kind.__name__}, got {type(value).__name__}", field=where)
    return value


def _parse_turn(raw: Any, session: int, seq: int, speakers: tuple[str, str], where: str) -> LocomoTurn:
    data: Mapping[str, Any] = _want(raw, dict, where)
    dia_id = _want(data.get("dia_id"), str, f"{where}.dia_id")
    ids, _ = split_evidence(dia_id)
    if len(ids) != 1 or ids[0] != dia_id or not dia_id.startswith(f"D{session}:"):
        raise ValidationError(f"{where}: dia_id {dia_id!r} is not of the form D{session}:<turn>", field="dia_id")
    speaker = _want(data.get("speaker"), str, f"{where}.speaker")
    if speaker not in speakers:
        raise ValidationError(f"{where}: speaker {speaker!r} is neither of {speakers}", field="speaker")
    caption = data.get("blip_caption")
    turn = LocomoTurn(
        dia_id=dia_id,
        session=session,
        seq=seq,
        speaker=speaker,
        text=_want(data.get("text", ""), str, f"{where}.text"),
        image_caption=_want(caption, str, f"{where}.blip_caption") if caption is not None else None,
    )
    if not turn.content:
        raise ValidationError(f"{where}: turn {dia_id} has neither text nor image", field="text")
    return turn


def _parse_observations(raw: Any, session: int, where: str) -> list[LocomoObservation]:
    out: list[LocomoObservation] = []
    for speaker, facts in _want(raw, dict, where).items():
        for index, item in enumerate(_want(facts, list, f"{where}.{speaker}")):
            at = f"{where}.{speaker}[{index}]"
            if not isinstance(item, list) or len(item) != 2:
                raise ValidationError(f"{at}: expected [fact, evidence]", field="observation")
            fact = _want(item[0], str, at)
            if not fact.strip():
                raise ValidationError(f"{at}: blank fact", field="observation")
            # evidence is usually one id, sometimes a list of them (conv-30, conv-43)
            evidence = item[1] if isinstance(item[1], str) else [_want(e, str, at) for e in _want(item[1], list, at)]
            ids, bad = split_evidence(evidence)
            out.append(LocomoObservation(session, speaker, index, fact, tuple(ids), tuple(bad)))
    return out


def _parse_question(raw: Any, where: str) -> LocomoQuestion:
    data: Mapping[str, Any] = _want(raw, dict, where)
    answer, adversarial = data.get("answer"), data.get("adversarial_answer")
    evidence = [_want(e, str, f"{where}.evidence") for e in _want(data.get("evidence", []), list, where)]
    ids, bad = split_evidence(evidence)
    return LocomoQuestion(
        question=_want(data.get("question"), str, f"{where}.question"),
        answer=str(answer) if answer is not None else str(adversarial) if adversarial is not None else "",
        evidence=tuple(ids),
        category=_want(data.get("category"), int, f"{where}.category"),
        adversarial_answer=str(adversarial) if adversarial is not None else None,
        malformed_evidence=tuple(bad),
    )


def parse_sample(raw: Any) -> LocomoSample:
    """One LoCoMo sample from its JSON object; ``ValidationError`` names the first thing that does not fit."""
    data: Mapping[str, Any] = _want(raw, dict, "sample")
    sample_id = _want(data.get("sample_id"), str, "sample_id")
    conv: Mapping[str, Any] = _want(data.get("conversation"), dict, f"{sample_id}.conversation")
    speakers = (_want(conv.get("speaker_a"), str, "speaker_a"), _want(conv.get("speaker_b"), str, "speaker_b"))
    dates = {int(m[1]): v for k, v in conv.items() if (m := _SESSION_DATE_RE.fullmatch(k))}
    observations: dict[int, list[LocomoObservation]] = {}
    for key, value in _want(data.get("observation", {}), dict, f"{sample_id}.observation").items():
        if m := _OBSERVATION_RE.fullmatch(key):
            observations[int(m[1])] = _parse_observations(value, int(m[1]), f"{sample_id}.observation.{key}")
    summaries = {int(m[1]): _want(v, str, f"{sample_id}.session_summary.{k}") for k, v in
                 _want(data.get("session_summary", {}), dict, f"{sample_id}.session_summary").items()
                 if (m := _SUMMARY_RE.fullmatch(k))}
    sessions: list[LocomoSession] = []
    seen: set[str] = set()
    for number in sorted(int(m[1]) for k in conv if (m := _SESSION_RE.fullmatch(k))):
        raw_turns = _want(conv[f"session_{number}"], list, f"{sample_id}.session_{number}")
        if not raw_turns:
            continue
        if number not in dates:
            raise ValidationError(f"{sample_id}: session_{number} has no session_{number}_date_time", field="date_time")
        where = f"{sample_id}.session_{number}"
        turns = tuple(_parse_turn(t, number, i, speakers, f"{where}[{i}]") for i, t in enumerate(raw_turns))
        for t in turns:
            if t.dia_id in seen:
                raise ValidationError(f"{sample_id}: dia_id {t.dia_id} occurs twice", field="dia_id")
            seen.add(t.dia_id)
        started = parse_session_datetime(_want(dates[number], str, f"{where}_date_time"))
        sessions.append(LocomoSession(number, started, turns, tuple(observations.pop(number, [])),
                                      summaries.get(number, "").strip() or None))
    if observations:
        raise ValidationError(f"{sample_id}: observations for sessions without turns {sorted(observations)}")
    planned = {s.number for s in sessions}
    unused = tuple(
        (n, parse_session_datetime(_want(v, str, f"{sample_id}.session_{n}_date_time")))
        for n, v in sorted(dates.items())
        if n not in planned
    )
    questions = tuple(
        _parse_question(q, f"{sample_id}.qa[{i}]") for i, q in enumerate(_want(data.get("qa", []), list, "qa"))
    )
    return LocomoSample(sample_id, speakers[0], speakers[1], tuple(sessions), questions, unused)


def load_locomo(path: str | Path) -> list[LocomoSample]:
    """All samples of a LoCoMo JSON file (a list of samples); ``ValidationError.item`` is the 1-based sample."""
    with Path(path).open(encoding="utf-8") as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"{path}: invalid JSON: {exc}") from None
    samples: list[LocomoSample] = []
    for i, raw in enumerate(_want(data, list, str(path)), start=1):
        try:
            samples.append(parse_sample(raw))
        except ValidationError as exc:
            raise ValidationError(str(exc), item=i, field=exc.field) from None
    return samples
