"""Consensus at retrieval: demote the memories that disagree with the consistent majority about their subject.

The no-LLM variant of A-MemGuard (arXiv 2510.02373): a poisoned memory is assumed to be a semantic outlier among
the memories a search returns about the same subject. The results are grouped by subject (each lowercase entity
name a memory is about); a memory in several groups is judged in each. In a group of at least ``min_group``
members, DBSCAN (cosine distance) clusters the embeddings; when the largest cluster holds a strict majority of the
group, every member outside it (DBSCAN noise, or a smaller cluster) dissents and its score is multiplied by
``factor``. Without a strict majority there is no consensus and nobody in that group is demoted.

Memories with no subject are not pooled into a group of their own: having no entity in common, their differences
are differences of topic, not contradictions, and a query spanning topics would demote its minority topics.
Memories whose embedding is all zeros or not finite have no direction to compare: they are left out of judging.

The search score is not used to judge: a poisoned memory is written to score high on the queries it targets, so
weighting the vote by score would hand it the majority.

Defaults, chosen to demote little among benign results. Memories about one subject that are all true still differ
(a search for Caroline's hobbies returns painting, hiking and a pottery class); with small sentence encoders such
memories sit at cosine distance of about 0.3-0.6 from one another, while an unrelated memory sits at 0.8-1.0.
``min_samples=2`` makes every memory with one neighbour within ``eps`` a core point, so the benign spread chains
into one cluster, and only a memory far from all others (or a minority clique far from the rest) dissents;
``eps=0.5`` sits between the two ranges, on the loose side. ``min_group=4``: below four members a "majority" is
two or three memories, too few to overrule anyone. ``factor=0.5`` demotes without removing, so a true but unusual
memory can still be read. All are plain fields of a frozen dataclass: sweep them with ``dataclasses.replace``.

Hubs are no subjects (``max_subject_degree``): in a conversation every turn is about its two speakers, so grouping
by a speaker pools every topic of the results, and the query's minority topics dissent. Leaving them out cut the
benign cost of consensus from 3.9 to 1.2 points of recall@10 on the LoCoMo dev conversations, and lets fewer
poisoned memories be caught (ASR-r .758 instead of .687); chosen in every leave-one-conversation-out fold under the
rule "lowest ASR-r at a benign cost of at most 2 points" (``benchmarks/consensus_subjects_cv.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["DEFAULT_CONFIG", "ConsensusConfig", "ConsensusItem", "Dissent", "apply", "dissenters"]


@dataclass(frozen=True)
class ConsensusItem:
    id: str
    embedding: Sequence[float]
    """Normalised here; need not be unit length."""
    subjects: tuple[str, ...]
    """Entity names the memory is about (compared case-insensitively); may be empty."""
    score: float
    """Its search score; carried for the caller, not used to judge (see the module docstring)."""


@dataclass(frozen=True)
class Dissent:
    id: str
    subject: str
    """The subject group in which it dissents (the strongest such group when it dissents in several)."""
    group_size: int
    majority_size: int
    factor: float
    """Multiply its score by this."""
    reason: str


@dataclass(frozen=True)
class ConsensusConfig:
    eps: float = 0.5
    """DBSCAN neighbourhood radius, in cosine distance (0 to 2)."""
    min_samples: int = 2
    """DBSCAN: members within ``eps`` (itself included) that make a core point."""
    min_group: int = 4
    """Subject groups with fewer judged members are left alone."""
    factor: float = 0.5
    """Score multiplier for a dissenter."""
    max_subject_degree: int | None = 100
    """A subject that more memories than this are ABOUT (a hub: a conversation's speaker, the user) is no subject:
    grouping by it pools every topic, as memories with no subject would. The walk's hub limit
    (``retrieval.service.VIA_MAX_DEGREE``); None: every subject counts (``consensus_stage`` applies it)."""
    echo_share: float = 0.8
    """A result restating this share of the query's words in a row (``retrieval.echo``) goes after every result
    that does not. Chosen on benign text only, never on an attack success rate: the lowest share in steps of 0.1
    at which no memory in the LoCoMo dev questions' candidate pools echoes its question (0.7 flags 3 of 50,285)."""
    echo_min_words: int = 4
    """... and at least this many words (a shorter query is never echoed)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.eps <= 2.0:
            raise ValueError(f"eps must be in (0, 2] (cosine distance), got {self.eps}")
        if self.min_samples < 1:
            raise ValueError(f"min_samples must be at least 1, got {self.min_samples}")
        if self.min_group < 3:
            raise ValueError(f"min_group must be at least 3 (a strict majority and a dissenter), got {self.min_group}")
        if not 0.0 <= self.factor <= 1.0:
            raise ValueError(f"factor must be in [0, 1], got {self.factor}")
        if not 0.0 < self.echo_share <= 1.0:
            raise ValueError(f"echo_share must be in (0, 1], got {self.echo_share}")
        if self.echo_min_words < 1:
            raise ValueError(f"echo_min_words must be at least 1, got {self.echo_min_words}")
        if self.max_subject_degree is not None and self.max_subject_degree < 1:
            raise ValueError(f"max_subject_degree must be at least 1 or None, got {self.max_subject_degree}")


DEFAULT_CONFIG = ConsensusConfig()


def dissenters(items: Sequence[ConsensusItem], config: ConsensusConfig = DEFAULT_CONFIG) -> dict[str, Dissent]:
    """The memories that dissent from their subject group's majority, by id (ids sorted).

    Raises ValueError on a repeated id or embeddings of different lengths.
    """
    vectors = _unit_vectors(items)
    groups: dict[str, list[str]] = {}
    for item in items:
        if item.id not in vectors:
            continue
        for subject in sorted({s.strip().casefold() for s in item.subjects} - {""}):
            groups.setdefault(subject, []).append(item.id)
    found: dict[str, Dissent] = {}
    for subject in sorted(groups):
        ids = sorted(groups[subject])  # DBSCAN's border points depend on order: fix it
        if len(ids) < config.min_group:
            continue
        for dissent in _judge(subject, ids, vectors, config):
            held = found.get(dissent.id)
            if held is None or _strength(dissent) > _strength(held):
                found[dissent.id] = dissent
    return {key: found[key] for key in sorted(found)}


def apply(results_scores: Mapping[str, float], dissent: Mapping[str, Dissent]) -> dict[str, float]:
    """The scores with each dissenter's multiplied by its factor, in the order given; other ids are ignored."""
    return {key: score * dissent[key].factor if key in dissent else score for key, score in results_scores.items()}


def _unit_vectors(items: Sequence[ConsensusItem]) -> dict[str, npt.NDArray[np.float64]]:
    vectors: dict[str, npt.NDArray[np.float64]] = {}
    seen: set[str] = set()
    width: int | None = None
    for item in items:
        if item.id in seen:
            raise ValueError(f"memory {item.id!r} is given twice")
        seen.add(item.id)
        vector = np.asarray(item.embedding, dtype=np.float64).ravel()
        if width is None:
            width = vector.size
        elif vector.size != width:
            raise ValueError(f"memory {item.id!r} has an embedding of {vector.size} values, others {width}")
        norm = float(np.linalg.norm(vector))
        if norm > 0.0 and math.isfinite(norm):
            vectors[item.id] = vector / norm
    return vectors


def _judge(subject: str, ids: list[str], vectors: Mapping[str, npt.NDArray[np.float64]],
           config: ConsensusConfig) -> list[Dissent]:
    from sklearn.cluster import DBSCAN  # imported here: scikit-learn takes seconds to import, most searches skip this

    matrix = np.stack([vectors[key] for key in ids])
    labels = [int(label) for label in
              DBSCAN(eps=config.eps, min_samples=config.min_samples, metric="cosine").fit_predict(matrix)]
    sizes: dict[int, int] = {}
    for label in labels:
        if label >= 0:
            sizes[label] = sizes.get(label, 0) + 1
    if not sizes:
        return []
    majority, majority_size = max(sizes.items(), key=lambda pair: (pair[1], -pair[0]))
    if 2 * majority_size <= len(ids):
        return []  # no strict majority: no consensus to dissent from
    return [
        Dissent(id=key, subject=subject, group_size=len(ids), majority_size=majority_size, factor=config.factor,
                reason=(f"disagrees with {majority_size} of {len(ids)} memories about {subject!r} "
                        f"({'outlier' if label < 0 else 'minority cluster'}; DBSCAN cosine eps {config.eps:g}, "
                        f"min_samples {config.min_samples})"))
        for key, label in zip(ids, labels, strict=True) if label != majority
    ]


def _strength(dissent: Dissent) -> tuple[float, int]:
    """Stronger: a larger share of the group against it, then a larger majority (ties: the first subject by name)."""
    return (dissent.majority_size / dissent.group_size, dissent.majority_size)
