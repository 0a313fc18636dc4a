"""What the evaluated memory holds: the corpus (turns only, or turns and facts), in its own namespace.

``turns`` is what a real agent has before any reflection: one episodic memory per dialog turn. ``turns+facts``
adds LoCoMo's observations, semantic memories derived from the turns their evidence names (what reflection would
distil), so a hit on a fact reaches its source turns.
"""

from __future__ import annotations

import dataclasses

from graphmem.errors import ValidationError
from graphmem.importers.locomo import LocomoSample, plan_locomo
from graphmem.importers.plan import ImportPlan
from graphmem.models import MemoryKind, check_namespace

CORPORA = ("turns+facts", "turns")
DEFAULT_CORPUS = "turns+facts"


def check_corpus(corpus: str) -> str:
    if corpus not in CORPORA:
        raise ValidationError(f"unknown corpus {corpus!r}; choose from {list(CORPORA)}", field="corpus")
    return corpus


def corpus_namespace(base: str, corpus: str, tag: str | None = None) -> str:
    """``base`` for ``turns+facts`` (the namespace earlier reports used), ``base-turns`` for turns only; a graph
    ``tag`` (an ablation's construction) adds ``-<tag>``."""
    suffix = ("" if check_corpus(corpus) == DEFAULT_CORPUS else "-turns") + (f"-{tag}" if tag else "")
    return check_namespace(base[: 64 - len(suffix)] + suffix) if suffix else base


def corpus_plan(sample: LocomoSample, namespace: str, corpus: str) -> ImportPlan:
    """The sample's import plan into ``namespace``, without its facts for the ``turns`` corpus."""
    plan = plan_locomo(sample, namespace=namespace)
    if check_corpus(corpus) == "turns":
        plan = dataclasses.replace(plan, memories=tuple(m for m in plan.memories if m.kind is MemoryKind.EPISODIC))
    return plan


__all__ = ["CORPORA", "DEFAULT_CORPUS", "check_corpus", "corpus_namespace", "corpus_plan"]
