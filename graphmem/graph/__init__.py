"""Graph-side helpers: entity extraction for linking memories (see :mod:`graphmem.graph.entities`)."""

from graphmem.graph.entities import Entity, extract_entities, normalise_name

__all__ = ["Entity", "extract_entities", "normalise_name"]
