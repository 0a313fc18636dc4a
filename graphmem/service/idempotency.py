"""Idempotency keys: a replay of a write with the same request id and payload returns the first result."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from pydantic import BaseModel

from graphmem.config import Settings
from graphmem.errors import ConflictError, ValidationError
from graphmem.models import utcnow
from graphmem.retrieval.cache import BUMP, NamespaceVersions, bump_step
from graphmem.store import Step, Store
from graphmem.store.store import Tx

MAX_REQUEST_ID = 128
T = TypeVar("T")


def payload_hash(operation: str, payload: Any) -> str:
    """A stable hash of what a write asks for (pydantic models are dumped as JSON, keys sorted)."""

    def default(value: Any) -> Any:
        if isinstance(value, BaseModel):
            return value.model_dump(mode="json")
        if isinstance(value, datetime):
            return value.isoformat()
        raise TypeError(f"cannot hash {type(value).__name__}")

    text = json.dumps([operation, payload], default=default, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def key_id(namespace: str, request_id: str) -> str:
    if not request_id or len(request_id) > MAX_REQUEST_ID or not request_id.isprintable():
        raise ValidationError(f"request_id must be 1-{MAX_REQUEST_ID} printable chars", field="request_id")
    return f"{namespace}:{request_id}"


def claim_step(key: str, digest: str, result_json: str, now: datetime, ttl: timedelta) -> Step:
    return Step("request/claim", {"id": key, "payload_hash": digest, "result_json": result_json,
                                  "now": now, "expires_at": now + ttl})


def replayed_result(key_row: dict[str, Any], digest: str, request_id: str) -> str:
    """The stored result of a live key, or ConflictError when the payload differs."""
    if key_row["payload_hash"] != digest:
        raise ConflictError(f"request_id {request_id!r} was used before with a different payload")
    return str(key_row["result_json"])


class IdempotentWriter:
    """Base of the services: runs a logical write as one transaction, guarded by an optional request id."""

    def __init__(self, store: Store, settings: Settings, versions: NamespaceVersions | None = None) -> None:
        self.store = store
        self.settings = settings
        self.versions = versions or NamespaceVersions()
        """Bumped after every write, so cached searches of that namespace are dropped."""

    async def _write(self, namespace: str | None, steps: Sequence[Step]) -> list[list[dict[str, Any]]]:
        """A plain one-transaction write (no request id) that invalidates the namespace's cached searches (in
        every replica: the transaction ends with ``bump_step``); the results of ``steps``."""
        try:
            return (await self.store.write([*steps, bump_step(namespace)]))[:-1]
        finally:
            self.versions.bump(namespace)

    async def _apply(
        self, namespace: str, request_id: str | None, operation: str, payload: Any,
        steps: Sequence[Step], result_json: str,
    ) -> tuple[str, bool]:
        """Run ``steps`` in one transaction, guarded by the request id. Returns (result_json, replayed)."""
        if request_id is None:
            await self._write(namespace, steps)
            return result_json, False
        digest = payload_hash(operation, payload)
        ttl = timedelta(seconds=self.settings.idempotency_ttl_s)
        claim = claim_step(key_id(namespace, request_id), digest, result_json, utcnow(), ttl)
        try:
            results, key = await self.store.write_once(claim, [*steps, bump_step(namespace)])
        finally:
            self.versions.bump(namespace)
        if results is None:
            return replayed_result(key, digest, request_id), True
        return result_json, False

    async def _transact(self, namespace: str | None, label: str, work: Callable[[Tx], Awaitable[T]]) -> T:
        """A one-transaction write whose statements depend on what it reads (``Store.transact``; ``work`` may run
        more than once), invalidating the namespace's cached searches (in every replica: ``bump_step``)."""
        bump = bump_step(namespace)

        async def bumped(tx: Tx) -> T:
            result = await work(tx)
            await tx.run(BUMP, **bump.params)
            return result

        try:
            return await self.store.transact(label, bumped)
        finally:
            self.versions.bump(namespace)

    async def _apply_tx(
        self, namespace: str, request_id: str | None, operation: str, payload: Any,
        work: Callable[[Tx], Awaitable[str]],
    ) -> tuple[str, bool]:
        """Like ``_apply``, for a write that decides its result inside the transaction: ``work`` returns the result
        JSON, which is stored on the request id's key in the same transaction. Returns (result_json, replayed)."""
        claim: Step | None = None
        digest = ""
        if request_id is not None:
            digest = payload_hash(operation, payload)
            ttl = timedelta(seconds=self.settings.idempotency_ttl_s)
            claim = claim_step(key_id(namespace, request_id), digest, "null", utcnow(), ttl)

        async def run(tx: Tx) -> tuple[str, bool]:
            if claim is not None and request_id is not None:
                (key,) = await tx.run(claim.name, **claim.params)
                if not key["claimed"]:
                    return replayed_result(key, digest, request_id), True
            result = await work(tx)
            if claim is not None:
                await tx.run("memory/record_result", id=claim.params["id"], result_json=result)
            return result, False

        return await self._transact(namespace, operation, run)

    async def _replay(self, namespace: str, request_id: str | None, operation: str, payload: Any) -> str | None:
        """The stored result of a replayed request (checked before any embedding work), else None."""
        if request_id is None:
            return None
        rows = await self.store.read("request/get", id=key_id(namespace, request_id), now=utcnow())
        if not rows:
            return None
        return replayed_result(rows[0], payload_hash(operation, payload), request_id)
