"""The write of one merge, inside ONE transaction (``MemoryService._transact``): nothing of a cluster is committed
unless all of it is.

Order: the merged memory (when the LLM wrote one: the write path's own ``apply_plan``, so it is signed, embedded,
linked to its entities and nearest memories like any write), the members' edges, entities and provenance onto the
survivor, the members archived with ``MERGED_INTO``, then the survivor's confidence, validity and sources. The
function may run again after a deadlock (the driver retries it): it computes everything from the plan and what it
reads, and the merged memory's id is derived from its members (MERGE finds the same node). A member that changed
since the plan (no longer active, or other content) makes the whole cluster roll back (``ClusterChanged``).
"""

from __future__ import annotations

from datetime import datetime

from graphmem.consolidation.plan import ClusterPlan
from graphmem.errors import ConflictError
from graphmem.models import WriteAction
from graphmem.service.planning import WritePlan
from graphmem.service.write_tx import apply_plan
from graphmem.store.store import Tx

INHERIT = ("consolidation/inherit_edges", "consolidation/inherit_similar", "consolidation/inherit_links")


class ClusterChanged(ConflictError):
    """A member or the survivor changed between the plan and the write: the cluster is left as it is."""


async def apply_cluster(tx: Tx, plan: ClusterPlan, merged: WritePlan | None, *, at: datetime) -> int:
    """Write ``plan`` in ``tx`` (``merged``: the write plan of the LLM's new memory, or None when a member
    survives); returns how many members were archived."""
    if merged is not None:
        (result,) = await apply_plan(tx, merged, dedupe=False, at=at)
        if result.action is not WriteAction.CREATED:
            raise ClusterChanged(f"the merged memory {plan.survivor_id} exists already (a concurrent merge)")
    members = list(plan.archived)
    ids = {"namespace": plan.namespace, "survivor": plan.survivor_id, "members": members, "at": at}
    for name in INHERIT:
        await tx.run(name, **ids)
    hashes = dict(zip(plan.member_ids, plan.content_hashes, strict=True))
    archived = await tx.run("consolidation/archive", namespace=plan.namespace, survivor=plan.survivor_id, at=at,
                            members=[{"id": m, "content_hash": hashes[m]} for m in members])
    missing = sorted(set(members) - {r["id"] for r in archived})
    if missing:
        raise ClusterChanged(f"members {missing} changed since the merge was planned")
    rows = await tx.run(
        "consolidation/survivor", namespace=plan.namespace, id=plan.survivor_id, factor=plan.factor,
        importance=plan.importance, valid_from=plan.valid_from, valid_until=plan.valid_until, tags=list(plan.tags),
        tags_text=" ".join(plan.tags), sources=list(plan.sources), added_access=plan.added_access,
        added_reinforced=plan.added_reinforced, last_accessed_at=plan.last_accessed_at, at=at)
    if not rows:
        raise ClusterChanged(f"the survivor {plan.survivor_id} is no longer active")
    return len(archived)


__all__ = ["INHERIT", "ClusterChanged", "apply_cluster"]
