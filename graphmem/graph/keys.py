"""Entity keys (pure): whether a stored entity name is the key ``entities.normalise_name`` gives.

The content extractor, the graphiti importer and the write path (for the names callers give) store
``normalise_name`` of a name. A stored key is lowercase, so whether it came from a proper name is no longer visible,
and normalising it again could change it ("pottery classes", the key of "Pottery Classes", would become "pottery
class"): ``rebuild_graph`` merges only the names that are no key in either reading.
"""

from __future__ import annotations

from graphmem.graph.entities import normalise_name


def in_normal_form(name: str) -> bool:
    """Whether ``name`` is a key already: what ``normalise_name`` gives for it, as a proper name or not."""
    return name in (normalise_name(name), normalise_name(name, proper=True))


__all__ = ["in_normal_form"]
