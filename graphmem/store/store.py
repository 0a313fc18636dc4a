"""The store: the only place that talks to Neo4j. Domain objects in, domain objects out."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString

import neo4j

from graphmem.config import Settings
from graphmem.models import Memory, MemoryKind, MemoryStatus, ScoredMemory, utcnow
from graphmem.store.autocommit import read_one_row
from graphmem.store.cypher import CypherLoader
from graphmem.store.errors import translated
from graphmem.store.records import memory_from_map

VECTOR_INDEX = "memory_embedding"
FULLTEXT_INDEX = "memory_fulltext"
ACTIVE = [MemoryStatus.ACTIVE.value]

Row = dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One statement of a write transaction: a cypher file name and its parameters."""

    name: str
    params: dict[str, Any]


async def _run(tx: neo4j.AsyncManagedTransaction, query: LiteralString, params: dict[str, Any]) -> list[Row]:
    result = await tx.run(query, params)
    return [record.data() async for record in result]


class Store:
    """Async access to Neo4j. Reads go through ``execute_read``; one logical write is one ``execute_write``."""

    def __init__(self, driver: neo4j.AsyncDriver, settings: Settings, cypher: CypherLoader | None = None) -> None:
        self.driver = driver
        self.settings = settings
        self.database = settings.neo4j_database
        self.cypher = cypher or CypherLoader()

    @classmethod
    @asynccontextmanager
    async def connect(cls, settings: Settings) -> AsyncIterator[Store]:
        auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value()) if settings.neo4j_auth else None
        driver = neo4j.AsyncGraphDatabase.driver(
            settings.neo4j_uri, auth=auth,
            connection_timeout=settings.neo4j_timeout_s,
            connection_acquisition_timeout=settings.neo4j_timeout_s,
            max_transaction_retry_time=settings.neo4j_timeout_s,
            notifications_min_severity="OFF",
        )
        try:
            async with translated("connect"):
                await driver.verify_connectivity()
            yield cls(driver, settings)
        finally:
            await driver.close()

    # --- primitives -----------------------------------------------------------------------------
    async def read(self, name: str, /, **params: Any) -> list[Row]:
        query = self.cypher(name)
        async with translated(name), self.driver.session(database=self.database) as session:
            return await session.execute_read(_run, query, params)

    async def read_row(self, name: str, /, **params: Any) -> Row:
        """The one row of a statement that returns exactly one, its values as the driver decoded them: without
        ``record.data()``'s conversion pass (a third of a search's client CPU), so only for statements that
        return maps, lists and scalars (no nodes, relationships or paths). In an auto-commit transaction, retried as
        a managed one would be (``store/autocommit``): one round trip less."""
        query = self.cypher(name)
        async with translated(name):
            return await read_one_row(self.driver, self.database, query, params,
                                      retry_s=self.settings.neo4j_timeout_s)

    async def write(self, steps: Sequence[Step]) -> list[list[Row]]:
        """Run the steps in ONE transaction (retried as a whole by the driver on transient errors)."""
        queries = [(self.cypher(step.name), step.params) for step in steps]

        async def work(tx: neo4j.AsyncManagedTransaction) -> list[list[Row]]:
            return [await _run(tx, query, params) for query, params in queries]

        label = "+".join(step.name for step in steps)
        async with translated(label), self.driver.session(database=self.database) as session:
            return await session.execute_write(work)

    async def write_once(self, claim: Step, steps: Sequence[Step]) -> tuple[list[list[Row]] | None, Row]:
        """Like ``write``, guarded by an idempotency key claimed in the same transaction.

        Returns ``(results, key)``; ``results`` is None when the key was already live (nothing else ran).
        """
        claim_query = self.cypher(claim.name)
        queries = [(self.cypher(step.name), step.params) for step in steps]

        async def work(tx: neo4j.AsyncManagedTransaction) -> tuple[list[list[Row]] | None, Row]:
            (key,) = await _run(tx, claim_query, claim.params)
            if not key["claimed"]:
                return None, key
            return [await _run(tx, query, params) for query, params in queries], key

        label = "+".join([claim.name, *(step.name for step in steps)])
        async with translated(label), self.driver.session(database=self.database) as session:
            return await session.execute_write(work)

    async def run_schema(self, name: str, /, **params: Any) -> list[Row]:
        """Schema statements run in their own auto-commit transaction (they cannot mix with data)."""
        query = self.cypher(name)
        async with translated(name), self.driver.session(database=self.database) as session:
            result = await session.run(query, params)
            return [record.data() async for record in result]

    # --- memories -------------------------------------------------------------------------------
    async def create_memories(self, memories: Sequence[Memory], embeddings: Sequence[list[float]]) -> list[str]:
        """Create memories in one transaction; returns the ids that were new (existing ids are kept as is)."""
        if len(memories) != len(embeddings):
            raise ValueError("one embedding per memory")
        rows = [m.to_row(e) for m, e in zip(memories, embeddings, strict=True)]
        (result,) = await self.write([Step("memory/create", {"rows": rows})])
        return [r["id"] for r in result if r["created"]]

    async def get_memory(
        self, memory_id: str, namespaces: Sequence[str], *, include_deleted: bool = False,
    ) -> Memory | None:
        """One memory by id; superseded and archived ones are returned too (history), deleted ones only on request."""
        statuses = [s.value for s in MemoryStatus if include_deleted or s is not MemoryStatus.DELETED]
        rows = await self.read("memory/get", id=memory_id, namespaces=list(namespaces), statuses=statuses,
                               now=utcnow())
        return memory_from_map(rows[0]["memory"]) if rows else None

    async def list_memories(
        self, namespace: str, *, kinds: Sequence[MemoryKind] | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,), before: datetime | None = None, limit: int = 50,
    ) -> list[Memory]:
        rows = await self.read(
            "memory/list", namespace=namespace, kinds=[k.value for k in kinds] if kinds else None,
            statuses=[s.value for s in statuses], before=before, limit=limit, now=utcnow(),
        )
        return [memory_from_map(r["memory"]) for r in rows]

    async def vector_search(
        self, embedding: list[float], namespaces: Sequence[str], *, k: int = 10,
        kinds: Sequence[MemoryKind] | None = None, statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
        oversample: int = 4,
    ) -> list[ScoredMemory]:
        rows = await self.read(
            "memory/vector_search", index=VECTOR_INDEX, embedding=embedding, oversample=max(k * oversample, k),
            k=k, namespaces=list(namespaces), kinds=[x.value for x in kinds] if kinds else None,
            statuses=[s.value for s in statuses], now=utcnow(),
        )
        return [ScoredMemory(memory=memory_from_map(r["memory"]), score=r["score"]) for r in rows]

    async def fulltext_search(
        self, query: str, namespaces: Sequence[str], *, limit: int = 10,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[ScoredMemory]:
        rows = await self.read(
            "memory/fulltext_search", index=FULLTEXT_INDEX, query=lucene_escape(query), limit=limit,
            namespaces=list(namespaces), statuses=[s.value for s in statuses], now=utcnow(),
        )
        return [ScoredMemory(memory=memory_from_map(r["memory"]), score=r["score"]) for r in rows]

    async def wipe_namespace(self, namespace: str) -> int:
        (rows,) = await self.write([Step("admin/wipe_namespace", {"namespace": namespace})])
        return int(rows[0]["deleted"])


_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def lucene_escape(text: str) -> str:
    """Escape Lucene syntax so user text is searched as words, never parsed as a query language.

    The analyzer (``settings.fulltext_analyzer``, "english") cuts Chinese into single characters, and single
    characters match almost everything; so each run of CJK characters becomes its overlapping two-character
    phrases ("退款政策" -> "退款" "款政" "政策"): a bigram match, on the same index, without a second one."""
    escaped = "".join(f"\\{c}" if c in _LUCENE_SPECIAL else c for c in text)
    escaped = _CJK_RUN.sub(lambda m: f" {_bigrams(m.group())} ", escaped)
    # Bare boolean operators would still be parsed as operators.
    words = [w.lower() if w in {"AND", "OR", "NOT", "TO"} else w for w in escaped.split()]
    return " ".join(words)


def _bigrams(run: str) -> str:
    if len(run) == 1:
        return run
    return " ".join(f'"{run[i:i + 2]}"' for i in range(len(run) - 1))
