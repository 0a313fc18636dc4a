"""Graphiti graphs (getzep/graphiti on Neo4j): the parsed group, and its import plan (pure: no database).

Mapping (one Graphiti ``group_id`` = one graphmem namespace, ``<prefix><group id>`` sanitised, see
``graphiti_namespace``):

- the group's episodes (``Episodic`` nodes), in time order (``valid_at``, then ``created_at``, then uuid), become
  the turns of one ended ``Task`` per group (agent ``graphiti``), each with an EPISODIC memory derived from its turn
  and linked to the task: the write path's graph construction then draws ``FOLLOWS`` between consecutive episodes
  for free, as it does for LoCoMo sessions. The memory's ``created_at``/``valid_from`` is the episode's
  ``valid_at`` (when it happened), its ``source`` ``graphiti:<source type>:<source description>``, and it is ABOUT
  the entities the episode ``MENTIONS``;
- each fact (a ``RELATES_TO`` edge between two entities) becomes a SEMANTIC memory whose content is the fact,
  ``valid_from``/``valid_until`` graphiti's ``valid_at``/``invalid_at``, ABOUT both entities and DERIVED_FROM the
  episodic memories of the episodes it cites (a cited episode the group lacks is counted,
  ``skipped["citations_unknown_episode"]``). A fact graphiti invalidated or expired (``invalid_at`` or
  ``expired_at`` set) is superseded after the write, its validity kept;
- each entity (``Entity`` node) becomes a graphmem entity keyed by its normalised name
  (``graphmem.graph.normalise_name``), with graphiti's type label lowercased (``Person`` -> ``person``,
  ``Organization`` -> ``organization``) as its kind, over the kind graphmem's extractor guessed from the memories'
  text; an entity without a type label keeps the kind graphmem gave it (the extractor's guess, or ``unknown``). A
  non-empty ``summary`` becomes a SEMANTIC memory ABOUT the entity (graphiti's own distillation of it).

Which fact replaced an invalidated one: graphiti does not record it. When it invalidates ``old`` because of
``new`` it sets ``old.invalid_at = new.valid_at`` (``resolve_edge_contradictions``), and the two share an entity;
``replacement_of`` names ``new`` when exactly one fact of the group fits that, and nothing otherwise.

Every id is ``stable_id(namespace, "graphiti", <what>, <graphiti uuid>)``, so a re-run writes nothing new.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graphmem.errors import ValidationError
from graphmem.graph.entities import normalise_name
from graphmem.importers.plan import ImportPlan, stable_id
from graphmem.models import (
    MAX_CONTENT_CHARS,
    MAX_TAGS,
    MemoryDraft,
    MemoryKind,
    Role,
    Task,
    TaskStatus,
    Turn,
    as_utc,
    check_namespace,
    utcnow,
)

AGENT = "graphiti"
DEFAULT_PREFIX = "graphiti-"
SOURCE_FACT = "graphiti:fact"
SOURCE_SUMMARY = "graphiti:entity-summary"
TURN_MAX_CHARS = 4 * MAX_CONTENT_CHARS


def from_millis(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value / 1000, tz=UTC)


@dataclass(frozen=True)
class GraphitiEpisode:
    uuid: str
    name: str
    content: str
    source: str
    source_description: str
    valid_at: datetime | None
    created_at: datetime | None
    mentions: tuple[str, ...] = ()
    """Uuids of the entities the episode MENTIONS."""

    @property
    def at(self) -> datetime | None:
        return self.valid_at or self.created_at


@dataclass(frozen=True)
class GraphitiEntity:
    uuid: str
    name: str
    summary: str = ""
    labels: tuple[str, ...] = ()
    """The node's labels besides ``Entity`` (graphiti's entity types)."""
    created_at: datetime | None = None


@dataclass(frozen=True)
class GraphitiFact:
    uuid: str
    name: str
    """The relation (``WORKS_AT``)."""
    fact: str
    source: str
    target: str
    """Uuids of the two entities."""
    episodes: tuple[str, ...] = ()
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    expired_at: datetime | None = None
    created_at: datetime | None = None

    @property
    def ended(self) -> bool:
        """Invalidated (no longer true) or expired (graphiti retired it): imported superseded."""
        return self.invalid_at is not None or self.expired_at is not None


@dataclass(frozen=True)
class GraphitiGroup:
    group_id: str
    episodes: tuple[GraphitiEpisode, ...]
    entities: tuple[GraphitiEntity, ...]
    facts: tuple[GraphitiFact, ...]


@dataclass(frozen=True)
class Supersession:
    old: str
    """Memory id of the ended fact."""
    new: str | None
    """Memory id of the fact that replaced it, when ``replacement_of`` could name one."""
    at: datetime


@dataclass(frozen=True)
class GraphitiPlan:
    group_id: str
    plan: ImportPlan
    supersessions: tuple[Supersession, ...]
    entity_rows: tuple[tuple[str, str | None], ...]
    """(normalised name, kind or None) of every entity of the group, without repeats."""
    source_counts: dict[str, int]
    """What the source group holds: episodes, facts, entities (nodes), summaries (non-empty)."""
    skipped: dict[str, int]
    """What could not be carried whole: facts with an unknown entity, blank facts, links over the per-memory cap,
    contents cut to graphmem's limit, and a fact's citations of an episode the group does not hold (or holds blank,
    so not imported): the fact is imported without those DERIVED_FROM edges (each episode counted once a fact)."""


_CLEAN_RE = re.compile(r"[^a-z0-9_.-]+")


def graphiti_namespace(group_id: str, prefix: str = DEFAULT_PREFIX) -> str:
    """``<prefix><group id>`` lowercased, other characters replaced by ``-``, cut to 64 chars; Graphiti's default
    group (``''``) is ``<prefix>default``."""
    cleaned = _CLEAN_RE.sub("-", f"{prefix}{group_id or 'default'}".lower())
    cleaned = cleaned.lstrip("-_.")[:64].rstrip("-_.")
    try:
        return check_namespace(cleaned)
    except ValueError as exc:
        raise ValidationError(f"group {group_id!r}: {exc}", field="namespace") from None


def namespaces_for(group_ids: Sequence[str], prefix: str = DEFAULT_PREFIX) -> dict[str, str]:
    """group id -> namespace; two groups that would share a namespace are refused."""
    out: dict[str, str] = {}
    seen: dict[str, str] = {}
    for group in group_ids:
        ns = graphiti_namespace(group, prefix)
        if ns in seen:
            raise ValidationError(f"groups {seen[ns]!r} and {group!r} both map to namespace {ns!r}",
                                  field="group_id")
        seen[ns] = group
        out[group] = ns
    return out


def replacement_of(old: GraphitiFact, facts: Sequence[GraphitiFact]) -> GraphitiFact | None:
    """The fact that graphiti invalidated ``old`` for, when exactly one fits: it became valid when ``old`` stopped
    (``valid_at == old.invalid_at``) and shares an entity with it."""
    if old.invalid_at is None:
        return None
    ends = {old.source, old.target}
    fits = [f for f in facts if f.uuid != old.uuid and f.valid_at == old.invalid_at and {f.source, f.target} & ends]
    return fits[0] if len(fits) == 1 else None


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def _kind(entity: GraphitiEntity) -> str | None:
    return entity.labels[0].lower() if entity.labels else None


def plan_graphiti(group: GraphitiGroup, namespace: str) -> GraphitiPlan:
    """The deterministic import plan of one group (see the module docstring for the mapping)."""
    ns = namespace
    skipped = {"facts_unknown_entity": 0, "blank": 0, "links_over_cap": 0, "cut": 0, "citations_unknown_episode": 0}
    names = {e.uuid: normalise_name(e.name) for e in group.entities if normalise_name(e.name)}
    by_uuid = {e.uuid: e for e in group.entities}
    entity_rows: dict[str, str | None] = {}
    for e in group.entities:
        if e.uuid in names:
            entity_rows.setdefault(names[e.uuid], _kind(e))

    def about(uuids: Sequence[str]) -> tuple[str, ...]:
        """The entities' names as graphiti wrote them, one per key: the write path keys them (``normalise_name``)
        as the entity rows are; a key given again could be keyed differently ("globex industries")."""
        found = tuple({names[u]: surface(u) for u in uuids if u in names}.values())
        skipped["links_over_cap"] += max(0, len(found) - MAX_TAGS)
        return found[:MAX_TAGS]

    def surface(uuid: str) -> str:
        return " ".join(by_uuid[uuid].name.split())

    task_id = stable_id(ns, "graphiti", "task", group.group_id)
    episodes = sorted(group.episodes, key=lambda e: (e.at is None, e.at or datetime.min.replace(tzinfo=UTC),
                                                     e.uuid))
    turns: list[Turn] = []
    memories: list[MemoryDraft] = []
    episode_memory: dict[str, str] = {}
    for seq, ep in enumerate(episodes):
        raw = ep.content.strip() or ep.name.strip()
        if not raw:
            skipped["blank"] += 1
            continue
        turn_text, _ = _cut(raw, TURN_MAX_CHARS)
        content, was_cut = _cut(raw, MAX_CONTENT_CHARS)
        skipped["cut"] += was_cut
        turn_id = stable_id(ns, "graphiti", "turn", ep.uuid)
        memory_id = stable_id(ns, "graphiti", "episode", ep.uuid)
        episode_memory[ep.uuid] = memory_id
        turn = Turn(id=turn_id, task_id=task_id, seq=seq, role=Role.USER, content=turn_text,
                    at=ep.at or utcnow())
        turns.append(turn)
        memories.append(MemoryDraft(
            namespace=ns, kind=MemoryKind.EPISODIC, id=memory_id, content=content, created_at=turn.at,
            valid_from=turn.at, entities=about(ep.mentions), derived_from=(turn_id,), task_id=task_id,
            source=f"graphiti:{ep.source}:{ep.source_description}"[:256],
            metadata={"graphiti_uuid": ep.uuid, "graphiti_group_id": group.group_id, "graphiti_name": ep.name,
                      **({"graphiti_truncated": "true"} if was_cut else {})},
        ))
    fact_ids = {f.uuid: stable_id(ns, "graphiti", "fact", f.uuid) for f in group.facts}
    supersessions: list[Supersession] = []
    imported_facts = 0
    for f in group.facts:
        if f.source not in names or f.target not in names:
            skipped["facts_unknown_entity"] += 1
            continue
        if not f.fact.strip():
            skipped["blank"] += 1
            continue
        content, was_cut = _cut(f.fact.strip(), MAX_CONTENT_CHARS)
        skipped["cut"] += was_cut
        cited = tuple(dict.fromkeys(f.episodes))
        skipped["citations_unknown_episode"] += sum(1 for u in cited if u not in episode_memory)
        metadata = {"graphiti_uuid": f.uuid, "graphiti_group_id": group.group_id, "graphiti_relation": f.name}
        if f.expired_at is not None:
            metadata["graphiti_expired_at"] = f.expired_at.isoformat()
        until = f.invalid_at
        if until is not None and f.valid_at is not None and as_utc(until) <= as_utc(f.valid_at):
            metadata["graphiti_invalid_at"] = until.isoformat()  # kept as said; a draft's range must not be empty
            until = None  # the fact is ended all the same: superseded below
        memories.append(MemoryDraft(
            namespace=ns, kind=MemoryKind.SEMANTIC, id=fact_ids[f.uuid], content=content, created_at=f.created_at,
            valid_from=f.valid_at, valid_until=until, entities=about((f.source, f.target)),
            derived_from=tuple(episode_memory[u] for u in cited if u in episode_memory),
            task_id=task_id, source=SOURCE_FACT, metadata=metadata,
        ))
        imported_facts += 1
        if f.ended:
            new = replacement_of(f, group.facts)
            at = f.expired_at or f.invalid_at or f.created_at or datetime.now(UTC)
            supersessions.append(Supersession(fact_ids[f.uuid], fact_ids.get(new.uuid) if new else None, at))
    summaries = 0
    for e in group.entities:
        if e.uuid in names and e.summary.strip():
            content, was_cut = _cut(e.summary.strip(), MAX_CONTENT_CHARS)
            skipped["cut"] += was_cut
            memories.append(MemoryDraft(
                namespace=ns, kind=MemoryKind.SEMANTIC, id=stable_id(ns, "graphiti", "summary", e.uuid),
                content=content, created_at=e.created_at, entities=(surface(e.uuid),), source=SOURCE_SUMMARY,
                metadata={"graphiti_uuid": e.uuid, "graphiti_group_id": group.group_id, "graphiti_name": e.name},
            ))
            summaries += 1
    tasks: tuple[Task, ...] = ()
    if turns:
        tasks = (Task(id=task_id, namespace=ns, agent=AGENT, title=f"graphiti group {group.group_id or 'default'}",
                      status=TaskStatus.ENDED, started_at=turns[0].at, ended_at=turns[-1].at),)
    plan = ImportPlan(namespace=ns, tasks=tasks, turns=tuple(turns), memories=tuple(memories),
                      entities=tuple(entity_rows), unmatched_evidence=())
    counts = {"episodes": len(group.episodes), "facts": len(group.facts), "entities": len(group.entities),
              "summaries": summaries, "imported_facts": imported_facts}
    return GraphitiPlan(group.group_id, plan, tuple(supersessions), tuple(entity_rows.items()), counts, skipped)


__all__ = [
    "DEFAULT_PREFIX",
    "GraphitiEntity",
    "GraphitiEpisode",
    "GraphitiFact",
    "GraphitiGroup",
    "GraphitiPlan",
    "Supersession",
    "from_millis",
    "graphiti_namespace",
    "namespaces_for",
    "plan_graphiti",
    "replacement_of",
]
