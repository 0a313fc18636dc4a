from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.errors import ConfigError
from graphmem.store.cypher import CypherLoader, cypher_root, strip_comments


def test_strip_comments_keeps_statement_only() -> None:
    text = "// header\n// params: $x\n\nMATCH (n)\n  // inline note\nRETURN n.x AS x;\n"
    assert strip_comments(text) == "MATCH (n)\nRETURN n.x AS x"


def test_loads_and_caches(tmp_path: Path) -> None:
    (tmp_path / "q").mkdir()
    f = tmp_path / "q" / "one.cypher"
    f.write_text("// c\nRETURN $a AS a\n")
    loader = CypherLoader(tmp_path)
    assert loader("q/one") == "RETURN $a AS a"
    f.write_text("RETURN 2")
    assert loader("q/one") == "RETURN $a AS a"  # cached after the first read


def test_missing_empty_and_escaping_names_fail(tmp_path: Path) -> None:
    (tmp_path / "empty.cypher").write_text("// only a comment\n")
    loader = CypherLoader(tmp_path)
    with pytest.raises(ConfigError, match="not found"):
        loader("nope")
    with pytest.raises(ConfigError, match="empty"):
        loader("empty")
    with pytest.raises(ConfigError, match="bad cypher statement name"):
        loader("../etc/passwd")


def test_schema_steps_are_numbered_and_ordered() -> None:
    names = CypherLoader().names("schema")
    numbers = [int(n.split("/")[1].split("_")[0]) for n in names]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)
    assert any("vector" in n for n in names)
    assert any("fulltext" in n for n in names)


def test_every_repository_statement_loads_and_has_a_header() -> None:
    root = cypher_root()
    files = sorted(root.rglob("*.cypher"))
    assert len(files) > 20
    loader = CypherLoader(root)
    for path in files:
        name = str(path.relative_to(root).with_suffix(""))
        assert loader(name)
        assert path.read_text().lstrip().startswith("//"), f"{name} lacks a header comment"


def test_a_registered_folder_serves_its_prefix_and_nothing_ships_test_statements(tmp_path: Path) -> None:
    from graphmem.store.cypher import _FOLDERS, cypher_root, register_folder

    (tmp_path / "probe.cypher").write_text("// a test statement\nRETURN 1 AS one\n", encoding="utf-8")
    assert not (cypher_root() / "test").exists()  # test-only statements live with the tests
    register_folder("unit-probe", tmp_path)
    try:
        assert CypherLoader()("unit-probe/probe") == "RETURN 1 AS one"
    finally:
        _FOLDERS.pop("unit-probe")
    with pytest.raises(ConfigError):
        CypherLoader()("unit-probe/probe")
    with pytest.raises(ConfigError):
        register_folder("a/b", tmp_path)
