"""How many rows to ask the vector and full-text indexes for, so that ``seed_k`` remain after the filters.

Both indexes hold every namespace and return the best nodes of all of them; the search then keeps those that pass
its filters (namespace, status, kind, time). Asking for too few means a second statement (the search asks again
with 4x more); asking for too many costs index work on every search: on 100k memories in one namespace the search
statement took 35.8 ms at p50 asking the vector index for 120 rows (4 x seed_k 30), 31.4 for 60 and 30.6 for 45
(same 80 queries, interleaved). So the limit follows the share the filters kept last time, per channel and filter
set: ``seed_k * margin / share``, between ``seed_k`` and ``MAX_OVERSAMPLE``; a filter set not seen yet gets
``seed_k * factor``. A margin of 2 rather than less: the index is approximate (it explores about as many
candidates as it is asked for), and the share varies from query to query.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any

from graphmem.retrieval.types import Channel

MAX_OVERSAMPLE = 4096
FACTOR = 4
"""Rows per seed asked for while nothing is known of a filter set."""
MARGIN = 2.0
"""Rows asked per seed wanted, over the share kept (a query near another namespace's memories keeps fewer)."""
KEEP = 512
"""Filter sets remembered (least recently used out)."""


class Oversample:
    def __init__(self, *, adaptive: bool = True, factor: int = FACTOR, margin: float = MARGIN,
                 keep: int = KEEP) -> None:
        if factor < 1 or margin < 1.0:
            raise ValueError("factor and margin must be at least 1")
        self.adaptive = adaptive
        """False: always ``seed_k * factor`` (the tests that compare two search paths row for row use this)."""
        self.factor = factor
        self.margin = margin
        self._kept: OrderedDict[Hashable, float] = OrderedDict()
        self._keep = keep

    def limit(self, key: Hashable, seed_k: int) -> int:
        """Rows to ask the index for, for ``seed_k`` seeds under the filter set ``key``."""
        share = self._kept.get(key) if self.adaptive else None
        if share is None:
            return min(seed_k * self.factor, MAX_OVERSAMPLE)
        self._kept.move_to_end(key)
        wanted = math.ceil(seed_k * self.margin / max(share, 1.0 / MAX_OVERSAMPLE))
        return max(seed_k, min(wanted, MAX_OVERSAMPLE))

    def observe(self, key: Hashable, seen: int, kept: int) -> None:
        """The index gave ``seen`` rows, of which the filters kept ``kept``."""
        if not self.adaptive or seen <= 0:
            return
        self._kept[key] = min(max(kept, 0), seen) / seen
        self._kept.move_to_end(key)
        if len(self._kept) > self._keep:
            self._kept.popitem(last=False)


async def deepening(read: Callable[[list[dict[str, Any]], int], Awaitable[list[dict[str, Any]]]],
                    todo: list[dict[str, Any]], k: int, *, per_row: int, found: str,
                    also: Sequence[tuple[str, str, int]] = ()) -> list[dict[str, Any]]:
    """The rows of a per-row vector lookup (``idx``, the list ``found``, ``more``) that ranks all namespaces
    together: a row whose ``k`` index rows all scored above its threshold (``more``) but left fewer than
    ``per_row`` of its namespace may have more behind them, so it is asked again, 4x deeper, up to
    ``MAX_OVERSAMPLE``. ``also``: more lists the same lookup keeps, each as (list, its ``more`` flag, per_row); a
    row is asked again when any of them may hide more. ``read(todo, k)`` runs the statement; a row asked again
    comes later in the answer (the deeper answer of an ``idx`` wins where the caller keeps the last one)."""
    wants = [(found, "more", per_row), *also]
    rows: list[dict[str, Any]] = []
    while todo:
        answer = await read(todo, k)
        rows += answer
        again = {r["idx"] for r in answer if any(r[flag] and len(r[key]) < n for key, flag, n in wants)}
        if not again or k >= MAX_OVERSAMPLE:
            break
        todo, k = [row for row in todo if row["idx"] in again], min(k * 4, MAX_OVERSAMPLE)
    return rows


def filter_key(channel: Channel, filters: dict[str, Any]) -> tuple[Any, ...]:
    """What decides the share of an index's rows a search keeps: the channel and the filters (but ``now``)."""
    kinds = filters["kinds"]
    return (channel.value, tuple(filters["namespaces"]), tuple(filters["statuses"]),
            tuple(kinds) if kinds is not None else None, filters["as_of"], filters["after"], filters["before"],
            filters["min_trust"])
