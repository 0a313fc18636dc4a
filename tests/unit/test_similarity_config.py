"""The configured vector similarity: the search statements assume cosine (``retrieval/search`` reads the index's
score as (1 + cos) / 2), so a configuration that asks for euclidean is refused at once, with the reason."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graphmem.config import Settings


@pytest.mark.parametrize("value", ["euclidean", "EUCLIDEAN"])
def test_euclidean_is_refused_with_a_clear_message(value: str) -> None:
    with pytest.raises(ValidationError, match="'euclidean' is not supported: search scores assume the cosine"):
        Settings.model_validate({"embedding_similarity": value})


def test_euclidean_from_the_environment_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_SIMILARITY", "euclidean")
    with pytest.raises(ValidationError, match="not supported"):
        Settings()


def test_cosine_is_the_default_and_accepted() -> None:
    assert Settings().embedding_similarity == "cosine"
    assert Settings(embedding_similarity="cosine").embedding_similarity == "cosine"
    with pytest.raises(ValidationError):
        Settings.model_validate({"embedding_similarity": "dot"})
