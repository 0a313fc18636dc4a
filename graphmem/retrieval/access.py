"""Access counting off the request path: searches record ids; a background task writes them in batches."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from datetime import datetime

from graphmem.errors import StoreError
from graphmem.models import utcnow
from graphmem.store import Step, Store

log = logging.getLogger(__name__)


class AccessRecorder:
    def __init__(self, store: Store, *, flush_every_s: float = 2.0, max_pending: int = 500) -> None:
        self.store = store
        self.flush_every_s = flush_every_s
        self.max_pending = max_pending
        self._pending: Counter[tuple[str, str]] = Counter()
        self._last_at: datetime = utcnow()
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.flushed = 0

    def record(self, keys: list[tuple[str, str]]) -> None:
        """``(namespace, id)`` of memories returned (ids are unique per namespace only). Cheap and synchronous:
        called on the request path, writes nothing there."""
        self._pending.update(keys)
        self._last_at = utcnow()
        if len(self._pending) >= self.max_pending:
            self._wake.set()

    async def flush(self) -> int:
        if not self._pending:
            return 0
        batch, self._pending = self._pending, Counter()
        rows = [{"namespace": ns, "id": i, "n": n, "at": self._last_at} for (ns, i), n in batch.items()]
        try:
            (result,) = await self.store.write([Step("retrieval/touch", {"rows": rows})])
        except StoreError as exc:  # access counts are best effort: keep them for the next flush
            self._pending.update(batch)
            log.warning("access counts not written yet: %s", exc)
            return 0
        self.flushed += len(rows)
        return int(result[0]["touched"])

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.flush_every_s)
            self._wake.clear()
            await self.flush()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="graphmem-access-recorder")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.flush()
