"""What ``MemoryService.relate`` checks of its edges' endpoints before anything is written (pure: the endpoints come
from one read of ``memory/existing``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.errors import ForbiddenError, ValidationError
from graphmem.models import MemoryStatus, Relation, RelationType, trust_in


def check_endpoints(namespace: str, relations: Sequence[Relation], found: Mapping[str, Mapping[str, Any]], *,
                    trust: float | None = None) -> None:
    """Refuse the batch unless every edge may be written: both endpoints are memories of ``namespace`` (``found``:
    their ``memory/existing`` rows by id), neither quarantined (INVALID_INPUT: nothing links to one), and a
    ``SUPERSEDES`` edge retires no memory trusted more than its source memory or than the caller (``trust``, the
    token's; None: graphmem itself). That is reflection's rule (a low-trust conversation may not retire what a more
    trusted writer said): a superseded memory leaves search, so a low-trust token would otherwise hide a trusted
    fact behind its own. FORBIDDEN, naming the item. Nothing is written either way."""
    for i, rel in enumerate(relations):
        for x in (rel.source_id, rel.target_id):
            if x not in found:
                raise ValidationError(f"memory {x!r} not found in {namespace!r}", item=i)
            if found[x].get("status") == MemoryStatus.QUARANTINED.value:
                raise ValidationError(f"memory {x!r} is quarantined (the poisoning screen flagged it, its "
                                      "metadata.quarantine_reason says why): nothing links to a quarantined memory "
                                      "until an admin releases it", item=i)
    for i, rel in enumerate(relations):
        if rel.type is not RelationType.SUPERSEDES:
            continue
        source, target = trust_in(found[rel.source_id]), trust_in(found[rel.target_id])
        if target > source:
            raise ForbiddenError(f"item {i}: memory {rel.source_id!r} (trust {source:g}) may not supersede "
                                 f"{rel.target_id!r} (trust {target:g}): a memory trusted less may not retire one "
                                 "trusted more")
        if trust is not None and target > trust:
            raise ForbiddenError(f"item {i}: a token of trust {trust:g} may not supersede {rel.target_id!r} "
                                 f"(trust {target:g}): a writer trusted less may not retire a memory trusted more")
