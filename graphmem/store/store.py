"""The store: the only place that talks to Neo4j. Domain objects in, domain objects out."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, LiteralString, TypeVar

import neo4j
import pydantic

from graphmem.config import Settings
from graphmem.models import Memory, MemoryKind, MemoryStatus, ScoredMemory, utcnow
from graphmem.security.integrity import Integrity
from graphmem.store.autocommit import read_one_row
from graphmem.store.breaker import Breaker
from graphmem.store.circuit import Circuit
from graphmem.store.cypher import CypherLoader
from graphmem.store.errors import translated
from graphmem.store.records import memory_from_map
from graphmem.zhtext import HAN

VECTOR_INDEX = "memory_embedding"
FULLTEXT_INDEX = "memory_fulltext"
WIPE_PAGE = 5000
"""Nodes ``Store.wipe_namespace`` deletes per transaction."""
ACTIVE = [MemoryStatus.ACTIVE.value]

Row = dict[str, Any]
T = TypeVar("T")
Transaction = neo4j.AsyncTransaction | neo4j.AsyncManagedTransaction


@dataclass(frozen=True)
class Step:
    """One statement of a write transaction: a cypher file name and its parameters."""

    name: str
    params: dict[str, Any]


async def _run(tx: Transaction, query: LiteralString, params: dict[str, Any]) -> list[Row]:
    result = await tx.run(query, params)
    return [record.data() async for record in result]


RESIGN_MARK = "_resign"
"""The property a statement sets on each memory whose signed fields it changed: the store then signs those memories
before the transaction commits (``Store._seal``). A statement's text naming it is how the store knows to look."""


SIGNED_ROWS = "row.signature_key"
"""A statement that stores ``row.signature_key`` creates memories from ``$rows`` whose fields are all in the row
(``memory/create``): the store signs each row before it runs (``Integrity.sign_rows``), which costs no round trip;
a statement that changes memories already stored marks them instead (``RESIGN_MARK``)."""


TEXT_TIMES = "datetime(row."
"""A statement that parses the times of ``$rows`` itself (``datetime(row.at)``) gets them as ISO-8601 text: the
driver packs a Python ``datetime`` in pure Python (about 0.14 ms each, 11 per memory on the bulk write path, on the
event loop's thread), text costs about a microsecond. The same instant is stored (``DateTime``, the same offset);
a naive time is taken as UTC, as signing takes it (``security/signing.py``)."""


def marks(query: str) -> bool:
    return RESIGN_MARK in query


def signs_rows(query: str) -> bool:
    return SIGNED_ROWS in query


def prepared_rows(query: str, rows: list[Row], integrity: Integrity) -> list[Row]:
    """``$rows`` as the statement takes them: signed where it creates memories (``SIGNED_ROWS``, signed on the
    Python values), then with its times as text where it parses them (``TEXT_TIMES``)."""
    if signs_rows(query):
        rows = integrity.sign_rows(rows)
    if TEXT_TIMES in query:
        rows = [{k: _time_text(v) if isinstance(v, datetime) else v for k, v in row.items()} for row in rows]
    return rows


def _time_text(value: datetime) -> str:
    return (value if value.tzinfo is not None else value.replace(tzinfo=UTC)).isoformat()


class Tx:
    """One managed write transaction, as ``Store.transact`` hands it to its function: statements by name."""

    def __init__(self, tx: Transaction, cypher: CypherLoader, integrity: Integrity) -> None:
        self._tx = tx
        self._cypher = cypher
        self.integrity = integrity
        self.marked = False

    async def run(self, name: str, /, **params: Any) -> list[Row]:
        query = self._cypher(name)
        self.marked = self.marked or marks(query)
        if "rows" in params:
            params = {**params, "rows": prepared_rows(query, params["rows"], self.integrity)}
        return await _run(self._tx, query, params)


class Store:
    """Async access to Neo4j. A read runs in a READ transaction; one logical write is ONE write transaction. Both
    are retried as a whole on transient errors and fail at once while Neo4j is known to be down
    (``store/circuit``: the driver's own retry loop could not be told)."""

    def __init__(self, driver: neo4j.AsyncDriver, settings: Settings, cypher: CypherLoader | None = None,
                 integrity: Integrity | None = None) -> None:
        self.driver = driver
        self.settings = settings
        self.integrity = integrity or Integrity.from_settings(settings)
        self.database = settings.neo4j_database
        self.bookmarks = neo4j.AsyncGraphDatabase.bookmark_manager() if settings.neo4j_bookmarks else None
        """Shared by every session of this store: a read waits for the writes committed before it (a cluster)."""
        self.cypher = cypher or CypherLoader()
        self.circuit = Circuit(Breaker(settings.neo4j_breaker_failures, settings.neo4j_probe_s), self._ping,
                               retry_s=settings.neo4j_timeout_s, probe_timeout_s=settings.neo4j_probe_timeout_s)

    @classmethod
    @asynccontextmanager
    async def connect(cls, settings: Settings) -> AsyncIterator[Store]:
        auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value()) if settings.neo4j_auth else None
        driver = neo4j.AsyncGraphDatabase.driver(
            settings.neo4j_uri, auth=auth,
            connection_timeout=settings.neo4j_connect_timeout_s,
            connection_acquisition_timeout=settings.neo4j_acquire_timeout_s,
            max_connection_pool_size=settings.neo4j_pool_size,
            max_transaction_retry_time=settings.neo4j_timeout_s,
            notifications_min_severity="OFF",
        )
        try:
            integrity = Integrity.from_settings(settings)  # refuses before connecting when no key is set
            async with translated("connect"):
                await driver.verify_connectivity()
            store = cls(driver, settings, integrity=integrity)
            try:
                yield store
            finally:
                await store.circuit.close()
        finally:
            await driver.close()

    async def _transaction(self, mode: str, work: Callable[[Transaction], Awaitable[T]]) -> T:
        """``work`` in one explicit transaction, committed when it returns (retried by ``self.circuit``)."""
        async with self.driver.session(database=self.database, default_access_mode=mode,
                                       bookmark_manager=self.bookmarks) as session:
            tx = await session.begin_transaction()
            async with tx:  # commits on a clean exit, rolls back otherwise
                return await work(tx)

    async def _seal(self, tx: Transaction) -> None:
        """Sign every memory this transaction marked (``RESIGN_MARK``), in it: no committed memory is unsigned."""
        dirty = await _run(tx, self.cypher("security/dirty"), {})
        if dirty:
            rows = self.integrity.seal_rows(r["memory"] for r in dirty)
            await _run(tx, self.cypher("security/seal"), {"rows": rows})

    async def _ping(self) -> None:
        """One round trip, outside the circuit: its prober's probe."""
        async with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            result = await session.run(self.cypher("admin/ping"))
            await result.consume()

    async def probe(self, name: str = "admin/ping", /, *, timeout_s: float | None = None, **params: Any) -> list[Row]:
        """A readiness probe (``/readyz``): fails at once while the breaker is open, else one try of the read within
        ``timeout_s`` (``neo4j_probe_timeout_s``); its connection failures feed the breaker."""
        query = self.cypher(name)
        return await self.circuit.probe(
            name, lambda: self._transaction(neo4j.READ_ACCESS, lambda tx: _run(tx, query, params)),
            timeout_s=timeout_s or self.settings.neo4j_probe_timeout_s)

    # --- primitives -----------------------------------------------------------------------------
    async def read(self, name: str, /, **params: Any) -> list[Row]:
        query = self.cypher(name)
        return await self.circuit.call(
            name, lambda: self._transaction(neo4j.READ_ACCESS, lambda tx: _run(tx, query, params)))

    async def read_row(self, name: str, /, **params: Any) -> Row:
        """The one row of a statement that returns exactly one, its values as the driver decoded them: without
        ``record.data()``'s conversion pass (a third of a search's client CPU), so only for statements that
        return maps, lists and scalars (no nodes, relationships or paths). In an auto-commit transaction, retried as
        a managed one would be (``store/autocommit``): one round trip less."""
        query = self.cypher(name)
        return await self.circuit.call(  # retry_s=0: one try each, the circuit retries
            name, lambda: read_one_row(self.driver, self.database, query, params, retry_s=0,
                                     bookmarks=self.bookmarks))

    async def write(self, steps: Sequence[Step]) -> list[list[Row]]:
        """Run the steps in ONE transaction (retried as a whole on transient errors)."""
        queries = [self._prepared(step) for step in steps]
        sealing = any(marks(query) for query, _ in queries)

        async def work(tx: Transaction) -> list[list[Row]]:
            results = [await _run(tx, query, params) for query, params in queries]
            if sealing:
                await self._seal(tx)
            return results

        label = "+".join(step.name for step in steps)
        return await self.circuit.call(label, lambda: self._transaction(neo4j.WRITE_ACCESS, work))

    async def write_once(self, claim: Step, steps: Sequence[Step]) -> tuple[list[list[Row]] | None, Row]:
        """Like ``write``, guarded by an idempotency key claimed in the same transaction.

        Returns ``(results, key)``; ``results`` is None when the key was already live (nothing else ran).
        """
        claim_query = self.cypher(claim.name)
        queries = [self._prepared(step) for step in steps]
        sealing = any(marks(query) for query, _ in queries)

        async def work(tx: Transaction) -> tuple[list[list[Row]] | None, Row]:
            (key,) = await _run(tx, claim_query, claim.params)
            if not key["claimed"]:
                return None, key
            results = [await _run(tx, query, params) for query, params in queries]
            if sealing:
                await self._seal(tx)
            return results, key

        label = "+".join([claim.name, *(step.name for step in steps)])
        return await self.circuit.call(label, lambda: self._transaction(neo4j.WRITE_ACCESS, work))

    def _prepared(self, step: Step) -> tuple[LiteralString, dict[str, Any]]:
        query = self.cypher(step.name)
        if "rows" in step.params:
            return query, {**step.params, "rows": prepared_rows(query, step.params["rows"], self.integrity)}
        return query, step.params

    async def transact(self, label: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run ``work`` in ONE write transaction, for writes whose later statements depend on what the earlier
        ones found (decisions taken under the locks they took). The whole function is retried on transient
        errors (deadlocks included): it must compute everything afresh from what it reads, and call nothing outside
        the database."""

        async def fn(tx: Transaction) -> T:
            handle = Tx(tx, self.cypher, self.integrity)
            out = await work(handle)
            if handle.marked:
                await self._seal(tx)
            return out

        return await self.circuit.call(label, lambda: self._transaction(neo4j.WRITE_ACCESS, fn))

    async def run_schema(self, name: str, /, **params: Any) -> list[Row]:
        """Schema statements run in their own auto-commit transaction (they cannot mix with data)."""
        query = self.cypher(name)

        async def once() -> list[Row]:
            async with self.driver.session(database=self.database) as session:
                result = await session.run(query, params)
                return [record.data() async for record in result]

        return await self.circuit.call(name, once, retry=False)

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
        found = self.memories(r["memory"] for r in rows)
        return found[0] if found else None

    async def get_memories(
        self, memory_ids: Sequence[str], namespaces: Sequence[str], *, include_deleted: bool = False,
    ) -> list[Memory]:
        """Memories by id in one read, as ``get_memory`` returns each (verified; flagged in flag mode)."""
        statuses = [s.value for s in MemoryStatus if include_deleted or s is not MemoryStatus.DELETED]
        rows = await self.read("memory/get_many", ids=list(dict.fromkeys(memory_ids)), namespaces=list(namespaces),
                               statuses=statuses, now=utcnow())
        return self.memories(r["memory"] for r in rows)

    async def list_memories(
        self, namespace: str, *, kinds: Sequence[MemoryKind] | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,), before: datetime | None = None, limit: int = 50,
    ) -> list[Memory]:
        rows = await self.read(
            "memory/list", namespace=namespace, kinds=[k.value for k in kinds] if kinds else None,
            statuses=[s.value for s in statuses], before=before, limit=limit, now=utcnow(),
        )
        return self.memories(r["memory"] for r in rows)

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
        return self._scored(rows)

    async def fulltext_search(
        self, query: str, namespaces: Sequence[str], *, limit: int = 10,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[ScoredMemory]:
        rows = await self.read(
            "memory/fulltext_search", index=FULLTEXT_INDEX, query=lucene_escape(query), limit=limit,
            namespaces=list(namespaces), statuses=[s.value for s in statuses], now=utcnow(),
        )
        return self._scored(rows)

    def _scored(self, rows: Iterable[dict[str, Any]]) -> list[ScoredMemory]:
        """Scored search rows, each memory through ``memories`` (dropped, or flagged in flag mode)."""
        return [ScoredMemory(memory=m, score=r["score"]) for r in rows for m in self.memories([r["memory"]])]

    def memories(self, maps: Iterable[dict[str, Any]]) -> list[Memory]:
        """``Memory`` objects from read node maps, verified (``security.integrity``: failures left out or flagged):
        every read that hands memories on goes through here."""
        out = []
        for data in self.integrity.checked(maps):
            try:
                out.append(memory_from_map(data))
            except pydantic.ValidationError:  # flag mode: tampered into something no Memory can hold (counted)
                continue
        return out

    async def wipe_namespace(self, namespace: str, *, page: int = WIPE_PAGE, also: Sequence[Step] = ()) -> int:
        """Delete every node of ``namespace`` with its edges (``admin/wipe_page``: ``page`` nodes a transaction, so
        a large namespace needs no huge one), then its dedupe lock nodes in a last transaction that also runs
        ``also`` (``service.wipe``: the search-cache bump). The number of nodes deleted."""
        deleted = 0
        while True:
            (rows,) = await self.write([Step("admin/wipe_page", {"namespace": namespace, "limit": page})])
            n = int(rows[0]["deleted"])
            deleted += n
            if n < page:
                break
        rows, *_ = await self.write([Step("admin/wipe_namespace", {"namespace": namespace,
                                                                   "lock_prefix": f"{namespace}\u0000"}), *also])
        return deleted + int(rows[0]["deleted"])


_LUCENE_SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
_CJK_RUN = re.compile(f"[{HAN}]+")


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
