"""The screen's second opinion: a linear probe over the memory's embedding that scores "aimed at the agent".

The rules of ``graphmem.security.screening`` explain what they catch, and catch what their patterns anticipate:
on a corpus of attacks written by someone who had not seen them (``benchmarks/data/screening_heldout``) they found
19% (``benchmarks/results/intent_probe.json``). Paraphrase is what an embedding is for, and every memory is
embedded before it is written, so a logistic regression over that vector costs one dot product per write.

The probe is trained by ``benchmarks/intent_probe.py`` on the committed screening corpus (``tests/data/screening``)
and the independently written ``benchmarks/data/screening_train`` only; its regularisation and its threshold are
chosen there by stratified cross-validation (the highest cross-validated detection whose benign false-positive rate
stays at or below ``MAX_CV_FALSE_POSITIVES``, and at or below ``MAX_CV_ORDINARY_FALSE_POSITIVES`` on ordinary
texts: workplace facts, chat, an agent's lessons and technical notes). The held-out corpus and the LoCoMo turns are
measured, never fitted. A probe belongs to one embedding space: the file names the embedders and model it was
trained with, and another configuration gets no probe (the rules alone).

Opt-in (``Settings.screening_probe``, ``GRAPHMEM_SCREENING_PROBE=true``; ``screening_probe_threshold`` overrides the
shipped threshold). History: v1 (threshold 0.95) quarantined "Alice is a backend engineer who moved from Acme Corp
to Globex."; v2 (workplace facts in training, 0.85) flagged 72% of the held-out attacks and 0.47% of LoCoMo's chat
turns ("Thanks for the support. You rock!"); v3 (chat lines added, and the ordinary-text cap) 56% and 1 turn, but
7% of an agent's held-out lessons and technical notes ("Get explicit confirmation before any purchase over
$100."); the shipped v4 (those added to training, 0.97) 42%, no LoCoMo turn, 3 of 200 lessons and notes. A lesson
is an instruction to the agent by design, so the probe stays off by default.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from graphmem.config import Settings
from graphmem.errors import ConfigError
from graphmem.models import MemoryDraft
from graphmem.security.screening import screen

__all__ = ["MAX_CV_FALSE_POSITIVES", "MAX_CV_ORDINARY_FALSE_POSITIVES", "PROBE_DIR", "IntentProbe", "load_probe",
           "memory_fields", "probe_path", "screen_drafts", "screen_reason"]

PROBE_DIR: Final = Path(__file__).parent / "probes"
MAX_CV_FALSE_POSITIVES: Final = 0.02
"""The benign false-positive rate (cross-validated on the committed corpus) a probe threshold may cost."""
MAX_CV_ORDINARY_FALSE_POSITIVES: Final = 0.002
"""The same for ordinary texts (workplace facts, chat, an agent's lessons and technical notes), at most one in
500: a store holds thousands of them."""


@dataclass(frozen=True)
class IntentProbe:
    model: str
    embedders: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    """Flag at ``score >= threshold``."""

    def score(self, vector: Sequence[float]) -> float:
        """P(aimed at the agent) for one embedding, in [0, 1]."""
        if len(vector) != len(self.weights):
            raise ConfigError(f"the intent probe takes {len(self.weights)}-dimensional vectors, got {len(vector)}")
        z = self.bias + math.fsum(w * x for w, x in zip(self.weights, vector, strict=True))
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def reason(self, score: float) -> str:
        return f"intent probe: score {score:.2f} >= {self.threshold:.2f}"

    @classmethod
    def read(cls, path: Path) -> IntentProbe:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            probe = cls(model=str(raw["model"]), embedders=tuple(str(e) for e in raw["embedders"]),
                        weights=tuple(float(w) for w in raw["weights"]), bias=float(raw["bias"]),
                        threshold=float(raw["threshold"]))
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"the intent probe {path.name} is missing or unreadable: {exc}") from exc
        if not probe.weights or not 0.0 < probe.threshold < 1.0:
            raise ConfigError(f"the intent probe {path.name} has no weights or a threshold outside (0, 1)")
        return probe


def probe_path(model: str) -> Path:
    return PROBE_DIR / f"{model}.json"


def load_probe(settings: Settings) -> IntentProbe | None:
    """The probe of the configured embedding space, or None (no probe for it, or ``screening_probe`` off); its
    threshold is the file's unless ``screening_probe_threshold`` sets another."""
    if not (settings.screening and settings.screening_probe):
        return None
    path = probe_path(settings.embedding_model)
    if not path.is_file():
        return None
    probe = IntentProbe.read(path)
    if settings.embedder not in probe.embedders:
        return None
    override = settings.screening_probe_threshold
    return probe if override is None else dataclasses.replace(probe, threshold=override)


def screen_reason(content: str, vector: Sequence[float] | None, threshold: float, probe: IntentProbe | None,
                  fields: Sequence[tuple[str, str]] = ()) -> str:
    """Why a memory about to be written is quarantined, "" when it is not: the rules' reason (``quarantined: score
    0.96 (exfiltration: '...'; ...)``), with ``; intent probe: score 0.91 >= 0.80`` when the probe agrees; or, caught
    by the probe alone, ``quarantined: intent probe: score 0.91 >= 0.80`` and the rules' weak hits, if any. The probe
    reads ``vector`` (the content's embedding; None: no probe). ``fields`` (``memory_fields``) are screened by the
    rules one by one, each flagged one adding ``; tags[1]: score 0.70 (...)`` (or starting the reason)."""
    main = _content_reason(content, vector, threshold, probe)
    side = [f"{name}: {verdict.reason().removeprefix('quarantined: ')}" for name, text in fields
            if (verdict := screen(text, threshold=threshold)).flagged]
    if not side:
        return main
    return f"{main}; {'; '.join(side)}" if main else f"quarantined: {'; '.join(side)}"


def _content_reason(content: str, vector: Sequence[float] | None, threshold: float, probe: IntentProbe | None) -> str:
    verdict = screen(content, threshold=threshold)
    probe = probe if vector is not None else None
    score = probe.score(vector) if probe is not None and vector is not None else 0.0
    caught = probe is not None and score >= probe.threshold
    if verdict.flagged:
        return f"{verdict.reason()}; {probe.reason(score)}" if caught and probe is not None else verdict.reason()
    if not caught or probe is None:
        return ""
    weak = f" (rules {verdict.reason().removeprefix('passed: ')})" if verdict.hits else ""
    return f"quarantined: {probe.reason(score)}{weak}"


def memory_fields(*, tags: Sequence[str] = (), entities: Sequence[str] = (), source: str | None = None,
                  metadata: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """The texts of a memory besides its content, which reach an agent as its content does, each named as a reason
    names it: ``tags[i]``, ``entities[i]``, ``source``, ``metadata key`` and ``metadata.KEY`` (its value). Each is
    screened alone: two ordinary tags that read as an instruction side by side ("admin", "override") are none."""
    named = [*((f"tags[{i}]", t) for i, t in enumerate(tags)), *((f"entities[{i}]", e) for i, e in enumerate(entities)),
             *((("source", source),) if source else ())]
    for key, value in (metadata or {}).items():
        named += [("metadata key", key), (f"metadata.{key[:40]}", value)]
    return named


def screen_drafts(drafts: Sequence[MemoryDraft], indexes: Iterable[int], vectors: Sequence[Sequence[float]],
                  threshold: float, probe: IntentProbe | None) -> dict[int, str]:
    """The drafts at ``indexes`` that the screen flags (index -> reason): the rules on the content and on every other
    text it carries (``memory_fields``), and the intent probe on the content's embedding (``vectors[i]``)."""
    out = {}
    for i in sorted(indexes):
        d = drafts[i]
        fields = memory_fields(tags=d.tags, entities=d.entities, source=d.source, metadata=d.metadata)
        if reason := screen_reason(d.content, vectors[i], threshold, probe, fields):
            out[i] = reason
    return out
