"""Conversions between Neo4j values and domain types."""

from __future__ import annotations

import json
from typing import Any

from neo4j.time import DateTime

from graphmem.models import Memory


def native(value: Any) -> Any:
    if isinstance(value, DateTime):
        return value.to_native()
    if isinstance(value, list):
        return [native(v) for v in value]
    return value


def memory_from_map(data: dict[str, Any]) -> Memory:
    """A ``Memory`` from a node map projection (``m {.*, embedding: null}``)."""
    fields = {k: native(v) for k, v in data.items() if k in Memory.model_fields}
    fields["tags"] = tuple(fields.get("tags") or ())
    fields["sources"] = tuple(fields.get("sources") or ())
    fields["reinforced_count"] = fields.get("reinforced_count") or 0
    raw_meta = data.get("metadata_json")
    fields["metadata"] = json.loads(raw_meta) if raw_meta else {}
    return Memory.model_validate(fields)

