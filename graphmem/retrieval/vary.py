"""Parameters whose size or nullness varies from one search to the next travel in ONE map, ``$vary``.

Neo4j keys a cached plan on the statement's text and on each top-level parameter's type, and for a string or a list
also on its size bucket (0, 1, <=10, <=100, ...). A list of candidate ids, a frontier, a full-text query or a filter
that is sometimes null, passed top-level, made a new key every few searches, and each new key planned the
statement again: 1-2 s for the one search statement, 0.3-0.5 s for the descent from summaries, about 0.5 s for the
statements of a PageRank search together (on this project's 2-core machine). A map carries no size hint."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

FILTERS = ("namespaces", "statuses", "kinds", "as_of", "after", "before", "min_trust")
"""The common filters (``search_params.search_filters``) that vary: all but ``now``, a datetime always."""


def in_map(varying: Iterable[str], /, **params: Any) -> dict[str, Any]:
    """``params`` with those named in ``varying`` moved into ONE map parameter, ``vary`` (the statement reads
    ``$vary.<name>``). Every retrieval statement a search runs takes its parameters so (``search_params.VARYING``
    says why for the one search statement)."""
    names = tuple(varying)
    return {**{k: v for k, v in params.items() if k not in names}, "vary": {name: params[name] for name in names}}


__all__ = ["FILTERS", "in_map"]
