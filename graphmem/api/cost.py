"""What an operation costs against its token's rate limit: one request for each root field it runs.

The HTTP guard (``app.Guard``) takes one request per POST before the body is read; an operation of several root
fields (aliases: ``a: search(...) b: search(...)``, up to ``schema.MAX_ALIASES``) takes one more per further field
once the body is parsed (``edge.request_data`` counts them, ``EdgeView.parse_http_body`` charges them through the
charger ``app.GraphQLApp.get_context`` set, which strawberry calls first), so a batch of twenty searches in one
request spends what twenty requests would. Introspection fields (``__typename``, ``__schema``) are free; a document
that does not parse costs its one request (GraphQL reports the error).
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

charger_var: ContextVar[Callable[[int], None] | None] = ContextVar("graphmem_charger", default=None)
"""Spends n more requests of this request's token (set by ``get_context``; raises the refusal when none is left)."""


def charge_further_fields(fields: int) -> None:
    """Spend a request for each of an operation's ``fields`` root fields after the first (the guard paid for one)."""
    charger = charger_var.get()
    if fields > 1 and charger is not None:
        charger(fields - 1)


def operations(document: DocumentNode) -> list[OperationDefinitionNode]:
    return [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]


def root_fields(document: DocumentNode, operation_name: str | None) -> int:
    """How many root fields the operation ``operation_name`` (or the document's only one) selects, fragments
    expanded, introspection fields left out; at least 1 (an unknown operation is GraphQL's error to report)."""
    found = operations(document)
    if operation_name is not None:
        chosen = next((o for o in found if o.name is not None and o.name.value == operation_name), None)
    else:
        chosen = found[0] if len(found) == 1 else None
    if chosen is None:
        return 1
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}

    def count(selections: SelectionSetNode, seen: frozenset[str]) -> int:
        n = 0
        for s in selections.selections:
            if isinstance(s, FieldNode):
                n += 0 if s.name.value.startswith("__") else 1
            elif isinstance(s, InlineFragmentNode):
                n += count(s.selection_set, seen)
            elif isinstance(s, FragmentSpreadNode) and s.name.value in fragments and s.name.value not in seen:
                n += count(fragments[s.name.value].selection_set, seen | {s.name.value})
        return n

    return max(1, count(chosen.selection_set, frozenset()))


__all__ = ["charge_further_fields", "charger_var", "operations", "root_fields"]
