"""What relate checks of its endpoints before writing (``graphmem.service.relations``): a SUPERSEDES edge retires no
memory trusted more than its source memory or the token that writes it (reflection's rule)."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.errors import ForbiddenError, ValidationError
from graphmem.models import Relation, RelationType
from graphmem.service.relations import check_endpoints


def _found(**trusts: float | None) -> dict[str, dict[str, Any]]:
    return {mid: {"id": mid, "label": "Memory", "status": "active", "trust": t} for mid, t in trusts.items()}


def _edge(source: str, target: str, type_: RelationType = RelationType.SUPERSEDES) -> Relation:
    return Relation(source_id=source, target_id=target, type=type_)


def test_a_memory_trusted_less_may_not_supersede_one_trusted_more() -> None:
    found = _found(low=0.2, fact=None)  # no trust stored: counts as 1
    refused = r"item 0: memory 'low' \(trust 0.2\) may not supersede 'fact' \(trust 1\)"
    with pytest.raises(ForbiddenError, match=refused):
        check_endpoints("ns", [_edge("low", "fact")], found)
    check_endpoints("ns", [_edge("fact", "low")], found)  # the other way round: allowed
    check_endpoints("ns", [_edge("low", "fact", RelationType.SUPPORTS)], found)  # only SUPERSEDES retires


def test_a_token_trusted_less_may_not_supersede_a_memory_trusted_more() -> None:
    found = _found(new=1.0, old=0.9, mine=0.3)
    with pytest.raises(ForbiddenError, match=r"item 1: a token of trust 0.3 may not supersede 'old' \(trust 0.9\)"):
        check_endpoints("ns", [_edge("new", "mine"), _edge("new", "old")], found, trust=0.3)
    check_endpoints("ns", [_edge("new", "mine"), _edge("new", "old")], found, trust=0.9)  # equal trust: allowed
    check_endpoints("ns", [_edge("new", "old")], found)  # graphmem itself (no token)


def test_an_unknown_endpoint_is_invalid_input() -> None:
    with pytest.raises(ValidationError, match="item 0: memory 'gone' not found in 'ns'"):
        check_endpoints("ns", [_edge("new", "gone")], _found(new=1.0))


def test_a_quarantined_endpoint_is_refused_either_way() -> None:
    found = {**_found(ok=1.0), "bad": {"id": "bad", "label": "Memory", "status": "quarantined", "trust": 1.0}}
    for source, target in (("ok", "bad"), ("bad", "ok")):
        with pytest.raises(ValidationError, match="item 0: memory 'bad' is quarantined"):
            check_endpoints("ns", [_edge(source, target, RelationType.SUPPORTS)], found)
