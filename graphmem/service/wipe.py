"""Wiping a namespace (``graphmem db wipe-namespace``): every node of it (memories, entities, tasks, turns,
maintenance jobs) with its edges, and its dedupe lock nodes.

For data that is better imported again than kept: a demo namespace written under a signing key that is no longer
listed (its memories fail verification and every read hides them; ``scripts/run.sh`` wipes and re-imports it),
an agent that is gone. It pages (``Store.wipe_namespace``, ``admin/wipe_page``: one transaction each), so a
namespace of any size is wiped without one huge transaction; an interrupted wipe is finished by running it again.
The last transaction removes the lock nodes and bumps the namespace's search-cache version
(``retrieval.cache.bump_step``), so that no API replica serves a cached result of the wiped namespace. It cannot
be undone, and ``graphmem export`` is no backup (an analysis copy graphmem cannot import): a dump of the Neo4j
database is (README, "Backups").
"""

from __future__ import annotations

from graphmem.retrieval.cache import bump_step
from graphmem.store import Store
from graphmem.store.store import WIPE_PAGE as PAGE


async def wipe_namespace(store: Store, namespace: str, *, page: int = PAGE) -> int:
    """Delete everything of ``namespace`` (``Store.wipe_namespace``, paged) and bump its search-cache version in the
    last transaction; the number of nodes deleted."""
    return await store.wipe_namespace(namespace, page=page, also=[bump_step(namespace)])


__all__ = ["PAGE", "wipe_namespace"]
