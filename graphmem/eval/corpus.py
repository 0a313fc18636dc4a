"""What the evaluated memory holds: the corpus (turns only, or turns and facts), in its own namespace.

``turns`` is what a real agent has before any reflection: one episodic memory per dialog turn. ``turns+facts``
adds LoCoMo's observations, semantic memories derived from the turns their evidence names (what reflection would
distil), so a hit on a fact reaches its source turns. ``turns+reflection`` imports the turns only, then graphmem's
own reflection writes the facts and the session's summary (``graphmem.eval.reflection``: the configured LLM,
once per session). ``turns+facts+summaries`` and ``turns+summaries`` add LoCoMo's ``session_summary`` of each
session as its task's summary (``graphmem.summary``), which a search climbs down from to the session's turns.
"""

from __future__ import annotations

import dataclasses

from graphmem.errors import ValidationError
from graphmem.importers.locomo import LocomoSample, locomo_namespace, plan_locomo
from graphmem.importers.plan import ImportPlan
from graphmem.models import MemoryKind, check_namespace

CORPORA = ("turns+facts", "turns", "turns+reflection", "turns+facts+summaries", "turns+summaries")
DEFAULT_CORPUS = "turns+facts"


def check_corpus(corpus: str) -> str:
    if corpus not in CORPORA:
        raise ValidationError(f"unknown corpus {corpus!r}; choose from {list(CORPORA)}", field="corpus")
    return corpus


def eval_namespace(sample_id: str, sessions: int | None = None) -> str:
    """``locomo-<sample>``; a sample cut to its first N sessions gets its own ``locomo-<sample>-first<N>``."""
    base = locomo_namespace(sample_id)
    if sessions is None:
        return base
    suffix = f"-first{sessions}"
    return check_namespace(base[: 64 - len(suffix)] + suffix)


def corpus_namespace(base: str, corpus: str, tag: str | None = None) -> str:
    """``base`` for ``turns+facts`` (the namespace earlier reports used), ``base-turns`` for turns only,
    ``base-reflection`` for turns and graphmem's reflection; a graph ``tag`` (an ablation's construction) adds
    ``-<tag>``."""
    own = {DEFAULT_CORPUS: "", "turns": "-turns", "turns+reflection": "-reflection",
           "turns+facts+summaries": "-summaries", "turns+summaries": "-turns-summaries"}
    suffix = own[check_corpus(corpus)] + (f"-{tag}" if tag else "")
    return check_namespace(base[: 64 - len(suffix)] + suffix) if suffix else base


def has_summaries(corpus: str) -> bool:
    """Whether the corpus holds LoCoMo's session summaries (``turns+reflection`` holds graphmem's own)."""
    return check_corpus(corpus).endswith("+summaries")


def corpus_plan(sample: LocomoSample, namespace: str, corpus: str) -> ImportPlan:
    """The sample's import plan into ``namespace``: its facts only in the ``turns+facts`` corpora (the reflection's
    facts are written after the import), LoCoMo's session summaries only in the ``+summaries`` ones."""
    plan = plan_locomo(sample, namespace=namespace, summaries=has_summaries(corpus))
    if not check_corpus(corpus).startswith("turns+facts"):
        plan = dataclasses.replace(plan, memories=tuple(m for m in plan.memories if m.kind is MemoryKind.EPISODIC))
    return plan


__all__ = ["CORPORA", "DEFAULT_CORPUS", "check_corpus", "corpus_namespace", "corpus_plan", "eval_namespace",
           "has_summaries"]
