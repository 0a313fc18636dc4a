"""ONNX Runtime for a sentence-transformers model: the transformer exported once from the local weights.

Why: a query is embedded on every search, one short text at a time; there PyTorch's per-call overhead is most of
the cost. ONNX Runtime runs the same graph about twice as fast on a CPU thread, and its vectors equal PyTorch's
to ~1e-7 (the export is float32, not quantized), so stored vectors and query vectors stay comparable whichever
runtime wrote them.

The export is made from the model's own files with ``torch.onnx`` (nothing is downloaded) and kept under
``<cache_dir>/onnx/``, named by the bytes of the model's weight files and the torch version; it is written to a
temporary file and renamed, so two processes exporting at once cannot leave a half-written model. Only what this
module can reproduce exactly is accepted: a transformer followed by mean or CLS pooling (and optionally a
normalisation); any other module (a Dense layer, say) is a ConfigError that points at
``GRAPHMEM_EMBEDDING_RUNTIME=torch``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.errors import ConfigError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17


def _pooling_mode(model: SentenceTransformer) -> str:
    modules: list[Any] = list(model)
    kinds = [type(m).__name__ for m in modules]
    if len(modules) not in (2, 3) or kinds[0] != "Transformer" or kinds[1] != "Pooling" or kinds[2:] not in (
        [], ["Normalize"]
    ):
        raise ConfigError(
            f"the ONNX runtime supports Transformer + Pooling (+ Normalize) models, this one is {kinds}: "
            "set GRAPHMEM_EMBEDDING_RUNTIME=torch"
        )
    config = modules[1].get_config_dict()
    if config.get("pooling_mode_mean_tokens") or config.get("pooling_mode") == "mean":
        return "mean"
    if config.get("pooling_mode_cls_token") or config.get("pooling_mode") == "cls":
        return "cls"
    raise ConfigError(
        f"the ONNX runtime supports mean or CLS pooling, not {config}: set GRAPHMEM_EMBEDDING_RUNTIME=torch"
    )


def export_path(model_dir: Path, cache_dir: Path) -> Path:
    """Where the export of the model in ``model_dir`` is kept: named by its weight files' names and bytes and the
    torch version. Not by their times: every install of the same package (a new virtual environment, each CI
    checkout) wrote them anew, and each got an export of its own, 90 MB that nothing removed. Hashing the bytes
    takes ~0.1 s for MiniLM's 91 MB, once per embedder."""
    import torch

    digest = hashlib.sha256(torch.__version__.encode())
    for weights in sorted(model_dir.glob("*.safetensors")) + sorted(model_dir.glob("*.bin")):
        with weights.open("rb") as f:
            digest.update(f"{weights.name}:{hashlib.file_digest(f, 'sha256').hexdigest()}".encode())
    return cache_dir / "onnx" / f"{model_dir.name}-{digest.hexdigest()[:16]}.onnx"


def _export(model: SentenceTransformer, target: Path) -> None:
    import torch

    first: Any = model[0]
    transformer = first.auto_model.eval()
    tokenizer = first.tokenizer
    names = [n for n in INPUTS if n in tokenizer.model_input_names]

    class Wrapped(torch.nn.Module):  # positional inputs, one output: what the TorchScript exporter wants
        def __init__(self) -> None:
            super().__init__()
            self.inner = transformer

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(names, tensors, strict=True))).last_hidden_state  # type: ignore[no-any-return]

    sample = tokenizer(["an example sentence"], return_tensors="pt")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".onnx.part")
    os.close(fd)
    try:
        with warnings.catch_warnings(), torch.inference_mode(False), torch.no_grad():
            warnings.simplefilter("ignore")  # the exporter's tracer warnings are about code paths we do not use
            torch.onnx.export(
                Wrapped(), tuple(sample[n] for n in names), tmp, input_names=names,
                output_names=["last_hidden_state"], opset_version=OPSET, dynamo=False,
                dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
            )
        os.replace(tmp, target)
    except Exception as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError(f"exporting the embedding model to ONNX failed: {exc} (GRAPHMEM_EMBEDDING_RUNTIME=torch "
                          "avoids the export)") from exc


class OnnxEncoder:
    """Encodes with ONNX Runtime what ``model.encode(..., normalize_embeddings=True)`` would."""

    def __init__(self, model: SentenceTransformer, model_dir: Path, cache_dir: Path, *, threads: int) -> None:
        try:
            import onnxruntime as ort  # type: ignore[import-untyped]
        except ImportError:
            raise ConfigError(
                "GRAPHMEM_EMBEDDING_RUNTIME=onnx needs onnxruntime (pip install 'graphmem[embed]'), "
                "or set GRAPHMEM_EMBEDDING_RUNTIME=torch"
            ) from None
        self._pooling = _pooling_mode(model)
        first: Any = model[0]
        self._tokenizer: Any = first.tokenizer
        self._max_length = int(model.max_seq_length or 256)
        self._names = [n for n in INPUTS if n in self._tokenizer.model_input_names]
        path = export_path(model_dir, cache_dir)
        if not path.is_file():
            _export(model, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads  # the caller resolves GRAPHMEM_EMBEDDING_THREADS=0 to torch's count
        options.inter_op_num_threads = 1
        # No busy-waiting between runs: ONNX Runtime's pool threads spin by default, taking CPU from the Neo4j
        # statement that follows every query embedding (2 cores: LoCoMo eval p95 embed 16.9 ms vs p50 6.0).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # a damaged cache file: say which, so it can be deleted
            raise ConfigError(f"ONNX Runtime cannot load {path}: {exc} (delete it to export again)") from exc
        self.path = path

    def encode(self, texts: list[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        batch = self._tokenizer(texts, padding=True, truncation=True, max_length=self._max_length, return_tensors="np")
        feeds = {n: np.asarray(batch[n], dtype=np.int64) for n in self._names}
        hidden: np.ndarray[Any, np.dtype[np.float32]] = self._session.run(None, feeds)[0]
        if self._pooling == "cls":
            pooled = hidden[:, 0]
        else:
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: np.ndarray[Any, np.dtype[np.float32]] = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit
