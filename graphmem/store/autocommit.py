"""A read in an auto-commit transaction, retried here as ``execute_read`` would retry it.

A managed transaction costs a round trip more than an auto-commit one (BEGIN and RUN go together, COMMIT waits for
its own answer): ~1.5 ms of a 17 ms search statement at 100k, measured interleaved. The driver retries only
managed transactions, so this loop does what it would: a retryable failure (the server gone, a leader switch, a
transient error) is tried again with exponential backoff until ``retry_s`` has passed; any other is raised at once.
Only for reads: running a read twice changes nothing.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any, LiteralString

import neo4j
from neo4j import exceptions as nx

FIRST_DELAY_S = 0.05
MAX_DELAY_S = 1.0


async def read_one_row(driver: neo4j.AsyncDriver, database: str, query: LiteralString, params: dict[str, Any], *,
                       retry_s: float, bookmarks: neo4j.AsyncBookmarkManager | None = None) -> dict[str, Any]:
    """The one row a read statement returns (its values as the driver decoded them)."""
    deadline = time.monotonic() + retry_s
    delay = FIRST_DELAY_S
    while True:
        try:
            async with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS,
                                      bookmark_manager=bookmarks) as session:
                result = await session.run(query, params)
                record = await result.single(strict=True)
                return dict(zip(record.keys(), record.values(), strict=True))
        except (nx.Neo4jError, nx.DriverError) as exc:
            pause = delay * random.uniform(0.8, 1.2)
            if not exc.is_retryable() or time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        delay = min(delay * 2, MAX_DELAY_S)
