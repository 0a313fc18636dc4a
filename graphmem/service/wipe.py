"""Wiping a namespace (``graphmem db wipe-namespace``): every node of it (memories, entities, tasks, turns,
maintenance jobs) with its edges, and its dedupe lock nodes.

For data that is better imported again than kept: a demo namespace written under a signing key that is no longer
listed (its memories fail verification and every read hides them; ``scripts/run.sh`` wipes and re-imports it),
an agent that is gone. It pages (``admin/wipe_page``, one transaction each), so a namespace of any size is
wiped without one huge transaction; an interrupted wipe is finished by running it again. The last transaction
removes the lock nodes and bumps the namespace's search-cache version (``retrieval.cache.bump_step``), so that no
API replica serves a cached result of the wiped namespace. It cannot be undone: ``graphmem export`` first keeps a
copy.
"""

from __future__ import annotations

from graphmem.retrieval.cache import bump_step
from graphmem.store import Step, Store

PAGE = 5000
"""Nodes deleted per transaction."""


async def wipe_namespace(store: Store, namespace: str, *, page: int = PAGE) -> int:
    """Delete everything of ``namespace``; the number of nodes deleted."""
    deleted = 0
    while True:
        (rows,) = await store.write([Step("admin/wipe_page", {"namespace": namespace, "limit": page})])
        n = int(rows[0]["deleted"])
        deleted += n
        if n < page:
            break
    rows, _ = await store.write([Step("admin/wipe_namespace", {"namespace": namespace,
                                                               "lock_prefix": f"{namespace}\u0000"}),
                                 bump_step(namespace)])
    return deleted + int(rows[0]["deleted"])


__all__ = ["PAGE", "wipe_namespace"]
