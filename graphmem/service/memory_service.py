"""MemoryService: the one entry point every front end (GraphQL, MCP, CLI) calls for memories."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import pydantic

from graphmem.config import Settings
from graphmem.embed import Embedder
from graphmem.errors import ConflictError, NotFoundError, ValidationError
from graphmem.graph.answer_kinds import held_kinds
from graphmem.graph.construct import Neighbour, graph_options, graph_rows
from graphmem.models import (
    BatchResult,
    Memory,
    MemoryDraft,
    MemoryStatus,
    Relation,
    RelationType,
    WriteAction,
    WriteResult,
    as_utc,
    caption,
    trust_of,
    utcnow,
)
from graphmem.retrieval.cache import NamespaceVersions
from graphmem.security.probe import load_probe, memory_fields, screen_drafts, screen_reason
from graphmem.service.dedupe import dedupe_threshold
from graphmem.service.idempotency import IdempotentWriter
from graphmem.service.nearest import Nearest, nearest_stored
from graphmem.service.neighbours import stored_neighbours
from graphmem.service.planning import WritePlan, content_hash, hash_target, plan_batch
from graphmem.service.relations import check_endpoints
from graphmem.service.tasks import TaskService, check_namespace_arg
from graphmem.service.write_tx import apply_plan
from graphmem.store import Step, Store
from graphmem.store.store import Tx

T = TypeVar("T", bound=pydantic.BaseModel)


def parse_items(model: type[T], raw: Sequence[Mapping[str, Any]], *, single: bool = False) -> list[T]:
    """Validate raw input items; the first bad one fails the whole batch with its index in the error (``single``:
    the input of a one-object operation, whose error names no item)."""
    out: list[T] = []
    for i, item in enumerate(raw):
        try:
            out.append(model.model_validate(item))
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "item"
            raise ValidationError(f"{where}: {first['msg']}", item=None if single else i, field=where) from None
    return out


class MemoryService(IdempotentWriter):
    """Validates, embeds (before any transaction), plans, and writes through the store in one transaction."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings,
                 versions: NamespaceVersions | None = None) -> None:
        super().__init__(store, settings, versions)
        self.embedder = embedder
        self.tasks = TaskService(store, settings, self.versions)
        self.probe = load_probe(settings)

    @property
    def threshold(self) -> float:
        """The dedupe threshold: the configured one, or the default measured for the embedding model."""
        return dedupe_threshold(self.settings)

    # --- helpers --------------------------------------------------------------------------------
    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await asyncio.to_thread(self.embedder.embed_documents, list(texts))

    # --- writes ---------------------------------------------------------------------------------
    async def write_memories(
        self, drafts: Sequence[MemoryDraft], *, request_id: str | None = None, dedupe: bool = True,
        refuse_changed: bool = False,
    ) -> BatchResult:
        """Write a batch of memories in one transaction; near-duplicates strengthen existing memories.

        Ids are per namespace: another namespace's memory of the same id is another memory. Under concurrent
        writes an exact duplicate is stored once, and an id is created once (see ``write_tx``). A stored id is left
        as it is (``EXISTS``); with ``refuse_changed`` (the API and MCP), a stored id with other content is
        CONFLICT instead, since the write would drop what the caller said."""
        return await self._write_batch(drafts, request_id=request_id, dedupe=dedupe, prepared=None,
                                       refuse_changed=refuse_changed)

    async def write_many(
        self, batches: Sequence[Sequence[MemoryDraft]], *, dedupe: bool = True,
        progress: Callable[[int], object] | None = None,
    ) -> list[BatchResult]:
        """The bulk path: each batch is its own transaction, and batch i+1 is embedded while batch i is
        checked and written (embedding is CPU work in a thread; the checks and the write wait on Neo4j)."""
        results: list[BatchResult] = []
        upcoming = asyncio.create_task(self._embed_new(batches[0])) if batches else None
        for i, batch in enumerate(batches):
            assert upcoming is not None
            prepared = await upcoming
            upcoming = asyncio.create_task(self._embed_new(batches[i + 1])) if i + 1 < len(batches) else None
            try:
                results.append(await self._write_batch(batch, request_id=None, dedupe=dedupe, prepared=prepared))
            except BaseException:
                if upcoming is not None:
                    upcoming.cancel()
                raise
            if progress is not None:
                progress(len(batch))
        return results

    async def _embed_new(self, drafts: Sequence[MemoryDraft]) -> dict[int, list[float]]:
        """Embeddings of the drafts that are not stored yet, by index."""
        ids = [d.id for d in drafts if d.id]
        stored = {r["id"] for r in await self.store.read(
            "memory/existing_ids", ids=ids, namespace=drafts[0].namespace)} if ids else set()
        todo = [i for i, d in enumerate(drafts) if d.id is None or d.id not in stored]
        return dict(zip(todo, await self.embed([drafts[i].content for i in todo]), strict=True))

    async def _write_batch(
        self, drafts: Sequence[MemoryDraft], *, request_id: str | None, dedupe: bool,
        prepared: dict[int, list[float]] | None, refuse_changed: bool = False,
    ) -> BatchResult:
        if not drafts:
            raise ValidationError("empty batch")
        if len(drafts) > self.settings.max_batch_size:
            raise ValidationError(f"batch of {len(drafts)} exceeds the limit of {self.settings.max_batch_size}")
        namespace = drafts[0].namespace
        payload = {"drafts": list(drafts), "dedupe": dedupe}
        if (stored := await self._replay(namespace, request_id, "write_memories", payload)) is not None:
            return BatchResult(items=_results(stored), replayed=True)
        plan = await self.plan_write(drafts, dedupe=dedupe, prepared=prepared, refuse_changed=refuse_changed)
        at = utcnow()

        async def work(tx: Tx) -> str:
            results = await apply_plan(tx, plan, dedupe=dedupe, at=at)
            return json.dumps([r.model_dump(mode="json") for r in results])

        stored, replayed = await self._apply_tx(namespace, request_id, "write_memories", payload, work)
        return BatchResult(items=_results(stored), replayed=replayed)

    async def plan_write(
        self, drafts: Sequence[MemoryDraft], *, dedupe: bool = True, prepared: dict[int, list[float]] | None = None,
        refuse_changed: bool = False,
    ) -> WritePlan:
        """Check, embed and deduplicate a batch (no transaction): what ``write_tx.apply_plan`` writes, deciding
        again under locks. Other writers (reflection) add their own statements to the same transaction."""
        existing = await self._check_references(drafts, refuse_changed=refuse_changed)
        wanted = {i for i, d in enumerate(drafts) if d.id is None or d.id not in existing}
        known = dict(prepared or {})
        missing = sorted(wanted - known.keys())
        known.update(zip(missing, await self.embed([drafts[i].content for i in missing]), strict=True))
        zero = [0.0] * self.embedder.dimension  # placeholder for drafts that exist already (never written)
        vectors = [known[i] if i in wanted else zero for i in range(len(drafts))]
        now = utcnow()
        hash_hits, nearest = await self._duplicates(drafts, vectors, wanted, now) if dedupe else ({}, None)
        flagged = screen_drafts(drafts, wanted, vectors, self.settings.screening_threshold,
                                self.probe) if self.settings.screening else {}  # quarantined: each one's reason
        vector_hits = nearest.duplicates if nearest else {}
        plan = plan_batch(
            drafts, vectors, existing_ids=existing, hash_hits=hash_hits, vector_hits=vector_hits,
            threshold=self.threshold, dedupe=dedupe, alpha=self.settings.dedupe_alpha, now=now,
            guard=self.settings.dedupe_guard, quarantine=flagged,
            working_ttl=self.settings.working_ttl,
        )
        await self._construct(plan, drafts, now, nearest.neighbours if nearest else None)
        return plan

    async def _construct(self, plan: WritePlan, drafts: Sequence[MemoryDraft], now: datetime,
                         neighbours: Mapping[int, list[Neighbour]] | None) -> None:
        """Add the graph construction rows (entities from content, SIMILAR_TO, FOLLOWS) of the memories the plan
        creates. ``neighbours``: the nearest stored memories by draft index, as dedupe's lookup found them; None
        (dedupe off): looked up here, before the transaction opens."""
        built = [(m, v) for m, v in zip(plan.creates, plan.create_vectors, strict=True)
                 if m.status is not MemoryStatus.QUARANTINED]  # nothing links to a quarantined memory
        if not built:
            return
        memories, vectors = [m for m, _ in built], [v for _, v in built]
        options = graph_options(self.settings)
        index_of = {r.id: r.index for r in plan.results if r.action is WriteAction.CREATED}
        created_drafts = [drafts[index_of[m.id]] for m in memories]
        if neighbours is None:
            stored = await stored_neighbours(self.store, memories, vectors, options,
                                             self.settings.embedding_similarity, now)
        else:
            stored = {pos: neighbours[i] for pos, i in enumerate(index_of[m.id] for m in memories) if i in neighbours}
        rows_ = graph_rows(memories, vectors, [d.entities for d in created_drafts],
                           [None if d.summary_of else d.task_id for d in created_drafts], stored, options, now)
        plan.construct_entity_rows += rows_.entity_rows  # every row names its namespace (graph_rows)
        plan.similar_rows += rows_.similar_rows
        plan.follow_rows += rows_.follow_rows

    async def _check_references(self, drafts: Sequence[MemoryDraft], *, refuse_changed: bool = False) -> set[str]:
        """Every referenced turn, memory and task must exist; returns the draft ids that exist already in the
        namespace (another namespace's ids are never looked at: the same id there is another memory), CONFLICT
        for one stored with other content when ``refuse_changed``."""
        namespaces = {d.namespace for d in drafts}
        if len(namespaces) > 1:
            raise ValidationError(f"one namespace per batch, got {sorted(namespaces)}")
        namespace = namespaces.pop()
        ids = [d.id for d in drafts if d.id]
        if len(ids) != len(set(ids)):
            raise ValidationError("duplicate ids in the batch")
        stored = {r["id"]: r["content_hash"] for r in await self.store.read(
            "memory/existing_ids", ids=ids, namespace=namespace)} if ids else {}
        for i, d in enumerate(drafts if refuse_changed else ()):
            if d.id in stored and stored[d.id] != content_hash(d.content):
                raise ConflictError(f"item {i}: memory {d.id!r} exists with other content: change it with "
                                    "updateMemory (memory_update), or write under another id")
        existing = set(stored)
        refs = {r for d in drafts for r in (*d.derived_from, *(t for t in (d.task_id, d.summary_of) if t))}
        found: dict[str, str] = {}
        if refs:
            found = {r["id"]: r["label"] for r in await self.store.read(
                "memory/existing", ids=sorted(refs), namespace=namespace)}
        batch_ids = set(ids)
        for i, d in enumerate(drafts):
            for ref in d.derived_from:
                if found.get(ref) not in ("Memory", "Turn") and ref not in batch_ids:
                    raise ValidationError(f"derived_from id {ref!r} is no memory or turn of {namespace!r}",
                                          item=i, field="derived_from")
            for name, task in (("task_id", d.task_id), ("summary_of", d.summary_of)):
                if task and found.get(task) != "Task":
                    raise ValidationError(f"task {task!r} not found in {namespace!r}", item=i, field=name)
        return existing

    async def _duplicates(
        self, drafts: Sequence[MemoryDraft], vectors: Sequence[list[float]], wanted: set[int], now: datetime,
    ) -> tuple[dict[int, str], Nearest]:
        """Exact (hash) and near (vector index) duplicates among stored memories, for the drafts in ``wanted``; the
        vector lookup also brings each draft's stored neighbours, for its SIMILAR_TO edges.

        Only a memory trusted at least as much as the draft's writer is a target: a trusted writer's words are
        never absorbed into a low-trust memory (an attacker who plants a near copy first would otherwise turn
        what the trusted writer says later into a mere strengthening of the low-trust copy)."""
        namespace = drafts[0].namespace
        hashes = [content_hash(d.content) for d in drafts]
        stored = [r for r in await self.store.read("memory/by_hash", hashes=sorted(set(hashes)), namespace=namespace)
                  if self.store.integrity.passed(r["signed"])]  # a memory that fails is no target: not re-signed
        targets = {i: hash_target(stored, h, d.kind.value, trust_of(d))
                   for i, (h, d) in enumerate(zip(hashes, drafts, strict=True)) if i in wanted}
        hash_hits = {i: mid for i, mid in targets.items() if mid is not None}
        nearest = await nearest_stored(
            self.store, drafts, vectors, [i for i in sorted(wanted) if i not in hash_hits], threshold=self.threshold,
            options=graph_options(self.settings), similarity=self.settings.embedding_similarity, now=now)
        return hash_hits, nearest

    async def relate(
        self, namespace: str, relations: Sequence[Relation], *, request_id: str | None = None,
        trust: float | None = None,
    ) -> int:
        """Create or update typed edges between memories of ``namespace``; returns how many were written. A
        ``SUPERSEDES`` edge also marks its target superseded (status, ``valid_until``), in the same transaction; it
        may not retire a memory trusted more than its source or than the caller (``trust``: ``ScopedService``
        passes its token's), see ``relations.check_endpoints``."""
        check_namespace_arg(namespace)
        if not relations:
            raise ValidationError("no relations given")
        for i, rel in enumerate(relations):
            if rel.source_id == rel.target_id:
                raise ValidationError("an edge from a memory to itself", item=i)
        ids = sorted({x for r in relations for x in (r.source_id, r.target_id)})
        found = {r["id"]: r for r in await self.store.read("memory/existing", ids=ids, namespace=namespace)
                 if r["label"] == "Memory"}
        check_endpoints(namespace, relations, found, trust=trust)
        now = utcnow()
        rows = [{**r.model_dump(mode="python"), "type": r.type.value, "at": now} for r in relations]
        steps = [Step("relation/relate", {"rows": rows, "namespace": namespace})]
        replaced = [{"new": r.source_id, "old": r.target_id, "at": now} for r in relations
                    if r.type is RelationType.SUPERSEDES]
        if replaced:  # the edge says the old fact is over: it is marked so, as reflection's supersede does
            steps.append(Step("memory/supersede", {"rows": replaced, "namespace": namespace, "source": "relate"}))
        payload = {"relations": list(relations)}
        stored, _ = await self._apply(namespace, request_id, "relate", payload, steps, json.dumps(len(rows)))
        return int(json.loads(stored))

    async def unrelate(self, namespace: str, source_id: str, target_id: str, type_: str) -> bool:
        check_namespace_arg(namespace)  # else a namespace over Neo4j's index key limit fails in the version bump
        rel = Relation(source_id=source_id, target_id=target_id, type=type_)  # type: ignore[arg-type]
        (rows,) = await self._write(namespace, [Step("relation/unrelate", {
            "source_id": rel.source_id, "target_id": rel.target_id, "type": rel.type.value, "namespace": namespace})])
        return bool(rows[0]["removed"])

    async def update_memory(
        self, namespace: str, memory_id: str, *, content: str | None = None, tags: Iterable[str] | None = None,
        confidence: float | None = None, importance: float | None = None,
        valid_from: datetime | None = None, valid_until: datetime | None = None, clear_valid_until: bool = False,
        editor: tuple[str, float] | None = None,
    ) -> Memory:
        """Edit a memory; new content is re-embedded (before the transaction) and re-hashed. None keeps a field;
        ``clear_valid_until`` removes the end of its validity (it may not come with a ``valid_until``). New content
        and new tags are screened as a write is: flagged, the memory becomes ``quarantined`` with the reason in its
        metadata (an edit that changes neither is not screened again: an admin's release stands).

        ``editor`` (token name, trust; ``ScopedService`` passes its own): an edit never leaves a memory trusted more
        than its editor (its trust becomes the lower of the two), and new content names the editor as its writer,
        so a low-trust token cannot put its words into a trusted memory."""
        if clear_valid_until and valid_until is not None:
            raise ValidationError("give valid_until or clear_valid_until, not both", field="valid_until")
        valid_from, valid_until = as_utc(valid_from), as_utc(valid_until)
        current = await self.get_memory(namespace, memory_id)
        start = valid_from or current.valid_from
        end = None if clear_valid_until else valid_until or current.valid_until
        if start is not None and end is not None and end <= start:
            raise ValidationError(f"valid_until ({end.isoformat()}) must be after valid_from ({start.isoformat()}): "
                                  "the memory would never be valid", field="valid_until")
        writer, trust = None, None
        if editor is not None:
            lowered = min(trust_of(current), editor[1])
            if content is not None:
                writer, trust = editor[0], lowered
            elif lowered < trust_of(current):
                trust = lowered
        changes = {k: v for k, v in {"content": content, "confidence": confidence, "importance": importance,
                                      "tags": tuple(tags) if tags is not None else None}.items() if v is not None}
        (checked,) = parse_items(Memory, [{**current.model_dump(), **changes}], single=True)  # the new values' checks
        embedding = (await self.embed([checked.content]))[0] if content is not None else None
        quarantine = (screen_reason(checked.content if content is not None else "", embedding,  # what changes only
                                    self.settings.screening_threshold, self.probe,
                                    memory_fields(tags=checked.tags) if tags is not None else ())
                      if self.settings.screening and (content is not None or tags is not None) else "")
        (rows,) = await self._write(namespace, [Step("memory/update", {
            "quarantine": MemoryStatus.QUARANTINED.value if quarantine else None,
            "metadata_json": json.dumps({**current.metadata, "quarantine_reason": quarantine}) if quarantine else None,
            "id": memory_id, "namespace": namespace, "content": content, "embedding": embedding,
            "content_hash": content_hash(checked.content) if content is not None else None,
            "title": caption(checked.content) if content is not None else None,
            "answer_kinds": list(held_kinds(checked.content)) if content is not None else None,
            "tags": list(checked.tags) if tags is not None else None,
            "tags_text": " ".join(checked.tags) if tags is not None else None,
            "confidence": confidence, "importance": importance, "valid_from": valid_from,
            "valid_until": valid_until, "clear_valid_until": clear_valid_until, "writer": writer, "trust": trust,
            "at": utcnow()})])
        if not rows:
            raise NotFoundError(f"memory {memory_id!r} not found in {namespace!r}")
        return await self.get_memory(namespace, memory_id)  # as sealed (the statement's map has the old signature)

    async def _set_status(self, namespace: str, ids: Sequence[str], allowed: Sequence[MemoryStatus],
                          to: MemoryStatus) -> list[str]:
        check_namespace_arg(namespace)
        if to is MemoryStatus.ACTIVE:  # a restore re-signs: only what verifies now (not what flag mode keeps)
            found = await self.store.get_memories(ids, [namespace], include_deleted=True)
            ok = {m.id for m in found if m.integrity == "ok"}
            ids = [i for i in ids if i in ok]
        (rows,) = await self._write(namespace, [Step("memory/set_status", {
            "ids": list(ids), "namespace": namespace, "from": [s.value for s in allowed], "to": to.value,
            "at": utcnow()})])
        return [r["id"] for r in rows]

    async def delete_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Soft delete: the memories stay (status ``deleted``) until purged."""
        live = [MemoryStatus.ACTIVE, MemoryStatus.SUPERSEDED, MemoryStatus.ARCHIVED]
        return await self._set_status(namespace, ids, live, MemoryStatus.DELETED)

    async def restore_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Deleted (not yet purged) and archived memories become active again."""
        return await self._set_status(namespace, ids, [MemoryStatus.DELETED, MemoryStatus.ARCHIVED],
                                      MemoryStatus.ACTIVE)

    async def release_memories(self, namespace: str, ids: Sequence[str]) -> list[str]:
        """Make quarantined memories active (an admin's judgement that the screen was wrong)."""
        return await self._set_status(namespace, ids, [MemoryStatus.QUARANTINED], MemoryStatus.ACTIVE)

    async def purge_memories(self, namespace: str, ids: Sequence[str]) -> int:
        """Remove soft-deleted memories for good (active ones are refused: delete them first)."""
        check_namespace_arg(namespace)
        (rows,) = await self._write(namespace, [Step("memory/purge", {"ids": list(ids), "namespace": namespace})])
        return int(rows[0]["purged"])

    # --- reads ----------------------------------------------------------------------------------
    async def get_memory(self, namespace: str, memory_id: str) -> Memory:
        memory = await self.store.get_memory(memory_id, [check_namespace_arg(namespace)])
        if memory is None:
            raise NotFoundError(f"memory {memory_id!r} not found in {namespace!r}")
        return memory


def _results(result_json: str) -> tuple[WriteResult, ...]:
    return tuple(WriteResult.model_validate(x) for x in json.loads(result_json))
