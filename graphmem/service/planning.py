"""Pure planning of a memory batch write: ids, hashes, dedupe decisions and the rows of each statement."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from graphmem.graph.entities import normalise_name
from graphmem.models import (
    Memory,
    MemoryDraft,
    MemoryKind,
    MemoryStatus,
    WriteAction,
    WriteResult,
    new_id,
    trust_in,
    trust_of,
)
from graphmem.service.dedupe import same_details


def content_hash(content: str) -> str:
    """Hash of the content with case and whitespace normalised: exact duplicates share it."""
    return hashlib.sha256(" ".join(content.lower().split()).encode()).hexdigest()


def cosine_from_index_score(score: float, similarity: str) -> float:
    """Neo4j's vector index scores: cosine (1 + cos) / 2; euclidean 1 / (1 + d^2) (unit vectors: d^2 = 2 - 2cos)."""
    if similarity == "cosine":
        return 2.0 * score - 1.0
    return 1.0 - (1.0 / score - 1.0) / 2.0


def index_score_from_cosine(cos: float, similarity: str) -> float:
    if similarity == "cosine":
        return (1.0 + cos) / 2.0
    return 1.0 / (1.0 + (2.0 - 2.0 * cos))


@dataclass(frozen=True)
class Hit:
    """An existing memory a draft may duplicate: its id, the cosine similarity and (for the detail check) its
    content; ``content`` None means an exact duplicate, which needs no check."""

    id: str
    cosine: float
    content: str | None = None


@dataclass
class WritePlan:
    """What a batch write intends, decided before its transaction; ``write_tx.apply_plan`` writes it and decides
    again, under locks, whether each create still is one (an exact duplicate or the same id may have been committed
    since by a concurrent writer)."""

    creates: list[Memory] = field(default_factory=list)
    create_vectors: list[list[float]] = field(default_factory=list)
    create_strengthen: list[dict[str, Any]] = field(default_factory=list)
    """Per create: its memory/strengthen row (without ``id``) should it turn out to repeat a stored memory."""
    strengthen_rows: list[dict[str, Any]] = field(default_factory=list)
    entity_rows: list[dict[str, Any]] = field(default_factory=list)
    """ABOUT rows of the entities the drafts name."""
    derived_rows: list[dict[str, Any]] = field(default_factory=list)
    task_rows: list[dict[str, Any]] = field(default_factory=list)
    construct_entity_rows: list[dict[str, Any]] = field(default_factory=list)
    similar_rows: list[dict[str, Any]] = field(default_factory=list)
    follow_rows: list[dict[str, Any]] = field(default_factory=list)
    """Graph construction (``graph.construct``) of the created memories: ABOUT rows of the entities found in their
    content, SIMILAR_TO and FOLLOWS rows."""
    summary_rows: list[dict[str, Any]] = field(default_factory=list)
    """``summary/attach`` rows of the task summaries (``MemoryDraft.summary_of``) the batch writes."""
    summary_ids: set[str] = field(default_factory=set)
    """Ids of the task summaries it creates: never merged into a duplicate (``write_tx.apply_plan``)."""
    results: list[WriteResult] = field(default_factory=list)


def plan_batch(
    drafts: Sequence[MemoryDraft],
    vectors: Sequence[Sequence[float]],
    *,
    existing_ids: set[str],
    hash_hits: Mapping[int, str],
    vector_hits: Mapping[int, Sequence[Hit]],
    threshold: float,
    dedupe: bool,
    alpha: float,
    now: datetime,
    guard: bool = True,
    quarantine: Mapping[int, str] | None = None,
    working_ttl: timedelta | None = None,
) -> WritePlan:
    """Decide, for each draft, whether it creates a memory, strengthens one, or already exists.

    ``hash_hits`` and ``vector_hits`` are per draft index (exact and near duplicates among stored memories,
    best first). Near duplicates inside the batch are found here: a later draft strengthens the earlier one it
    repeats. With ``guard``, a near duplicate must also pass the key-detail check (``dedupe.same_details``).
    ``quarantine`` (draft index -> the screen's reason): those are created ``quarantined``, never merged into an
    active memory (a repeat of a true memory with an instruction appended must not reinforce it).
    ``working_ttl``: a working memory created without ``expires_at`` expires this long after ``now`` (the life
    cycle's default, ``Settings.working_ttl``); an ``expires_at`` given is kept.
    """
    quarantine = quarantine or {}
    plan = WritePlan()
    matrix = np.asarray(vectors, dtype=np.float32) if len(vectors) else np.zeros((0, 0), np.float32)
    created_rows = _Created(drafts)  # the memories this batch creates, that a later draft may repeat
    for i, draft in enumerate(drafts):
        if draft.id is not None and draft.id in existing_ids:
            plan.results.append(WriteResult(index=i, id=draft.id, action=WriteAction.EXISTS))
            continue
        target: Hit | None = None
        if dedupe and i not in quarantine and draft.summary_of is None:
            target = _duplicate_of(i, drafts, matrix, created_rows, hash_hits, vector_hits, threshold, guard)
        strengthen = {"namespace": draft.namespace, "alpha": alpha * draft.confidence, "source": draft.source,
                      "token": draft.id, "at": now}
        if target is not None:
            plan.strengthen_rows.append({"id": target.id, **strengthen})
            plan.results.append(WriteResult(index=i, id=target.id, action=WriteAction.STRENGTHENED,
                                            similarity=round(target.cosine, 4)))
            memory_id = target.id
        else:
            memory_id = draft.id or new_id()
            created = draft.created_at or now
            reason = quarantine.get(i)
            memory = Memory(
                id=memory_id, namespace=draft.namespace, kind=draft.kind, content=draft.content,
                confidence=draft.confidence, importance=draft.importance, created_at=created, updated_at=now,
                valid_from=draft.valid_from or created, valid_until=draft.valid_until,
                expires_at=_expiry(draft, now, working_ttl),
                tags=draft.tags, source=draft.source, sources=(draft.source,) if draft.source else (),
                writer=draft.writer, trust=draft.trust,
                content_hash=content_hash(draft.content),
                status=MemoryStatus.QUARANTINED if reason else MemoryStatus.ACTIVE,
                metadata={**draft.metadata, "quarantine_reason": reason} if reason else draft.metadata,
            )
            plan.creates.append(memory)
            plan.create_vectors.append([float(x) for x in vectors[i]])
            plan.create_strengthen.append(strengthen)
            if draft.summary_of is not None:
                plan.summary_ids.add(memory_id)
            plan.results.append(WriteResult(index=i, id=memory_id, action=WriteAction.CREATED,
                                            quarantined=quarantine.get(i)))
            if i not in quarantine:
                created_rows.add(i, memory_id)
        plan.entity_rows += [{"memory_id": memory_id, "namespace": draft.namespace, "name": name, "at": now}
                             for name in entity_keys(draft.entities)]
        plan.derived_rows += [{"memory_id": memory_id, "namespace": draft.namespace, "target_id": t, "at": now}
                              for t in draft.derived_from]
        if draft.summary_of is not None:
            plan.summary_rows.append({"memory_id": memory_id, "namespace": draft.namespace,
                                      "task_id": draft.summary_of, "at": now})
        elif draft.task_id:
            plan.task_rows.append({"memory_id": memory_id, "namespace": draft.namespace, "task_id": draft.task_id,
                                   "at": now})
    return plan


def entity_keys(names: Sequence[str]) -> list[str]:
    """The entity nodes a draft's named entities merge into: ``normalise_name`` of each (the key the content
    extractor uses, so the caller's "Caroline" and a later "caroline's" meet), distinct, empties dropped. Callers
    give names as written, not keys: a key is lowercase, so it would be keyed as a common noun."""
    return list(dict.fromkeys(k for k in (normalise_name(n) for n in names) if k))


def hash_target(stored: Sequence[Mapping[str, Any]], content_hash_: str | None, kind: str,
                trust: float) -> str | None:
    """The id of the first ``memory/by_hash`` row with this hash and kind that a write of ``trust`` may strengthen:
    only a memory trusted at least as much (a trusted writer's words are never absorbed into a low-trust copy)."""
    return next((r["id"] for r in stored if r["content_hash"] == content_hash_ and r["kind"] == kind
                 and trust_in(r["signed"]) >= trust), None)


def _expiry(draft: MemoryDraft, now: datetime, working_ttl: timedelta | None) -> datetime | None:
    if draft.expires_at is not None or draft.kind is not MemoryKind.WORKING or working_ttl is None:
        return draft.expires_at
    return now + working_ttl


class _Created:
    """The memories a batch has created so far (draft index, id), and per draft what decides whether one of them
    is a target for it (the same namespace and kind, trusted at least as much), as arrays: a batch of n drafts
    compares each with those before it in numpy, not in n^2 Python steps."""

    def __init__(self, drafts: Sequence[MemoryDraft]) -> None:
        groups: dict[tuple[str, str], int] = {}
        self.group = np.asarray([groups.setdefault((d.namespace, d.kind.value), len(groups)) for d in drafts],
                                dtype=np.int64)
        self.trust = np.asarray([trust_of(d) for d in drafts], dtype=np.float64)
        self.index: list[int] = []
        self.ids: list[str] = []

    def add(self, i: int, memory_id: str) -> None:
        self.index.append(i)
        self.ids.append(memory_id)

    def targets_for(self, i: int) -> tuple[np.ndarray, list[str]]:
        """Draft indexes and ids of the created memories draft ``i`` may strengthen (a draft strengthens no
        memory trusted less than its writer)."""
        if not self.index:
            return np.zeros(0, dtype=np.int64), []
        index = np.asarray(self.index, dtype=np.int64)
        keep = np.flatnonzero((self.group[index] == self.group[i]) & (self.trust[index] >= self.trust[i]))
        return index[keep], [self.ids[k] for k in keep]


def _duplicate_of(
    i: int, drafts: Sequence[MemoryDraft], matrix: np.ndarray, created: _Created,
    hash_hits: Mapping[int, str], vector_hits: Mapping[int, Sequence[Hit]], threshold: float, guard: bool,
) -> Hit | None:
    if i in hash_hits:
        return Hit(hash_hits[i], 1.0)
    draft = drafts[i]
    candidates = list(vector_hits.get(i, ()))
    index, ids = created.targets_for(i)
    if len(index):
        sims = matrix[index] @ matrix[i]
        close = np.flatnonzero(sims >= threshold)  # only near ones become candidates (batches are large)
        candidates += [Hit(ids[c], float(sims[c]), drafts[int(index[c])].content) for c in close]
    for hit in sorted(candidates, key=lambda h: -h.cosine):
        if hit.cosine < threshold:
            break
        if not guard or hit.content is None or same_details(draft.content, hit.content):
            return hit
    return None
