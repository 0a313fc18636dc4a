"""API tokens: the token file (YAML or JSON) and its validation, authentication of a bearer token, demo mode,
tokens from the environment, and `graphmem token create`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from graphmem.cli import cli
from graphmem.config import Settings
from graphmem.errors import ConfigError, UnauthenticatedError
from graphmem.security import (
    Principal,
    TokenEntry,
    TokenStore,
    add_token_entry,
    hash_token,
    make_entry,
    new_token,
    parse_token_entries,
)

pytestmark = pytest.mark.usefixtures("clean_security_env")  # tests/unit/conftest.py

H1, H2 = "a" * 64, "b" * 64


def _yaml(*entries: dict[str, object]) -> str:
    return yaml.safe_dump({"tokens": list(entries)})


def test_parse_yaml_and_json() -> None:
    entry = {"name": "alice", "sha256": H1.upper(), "read": ["a", "a", "b"], "write": ["c"], "shared": True}
    for text in (_yaml(entry), json.dumps({"tokens": [entry]})):
        [parsed] = parse_token_entries(text)
        assert parsed == TokenEntry("alice", H1, ("a", "b"), ("c",), shared=True, admin=False)


def test_empty_file_is_no_tokens() -> None:
    assert parse_token_entries("") == []
    assert parse_token_entries("tokens: []\n") == []


@pytest.mark.parametrize(("entries", "pattern"), [
    ([{"name": "a", "sha256": "abc"}], r"tokens\[0\]: 'sha256' must be 64 hex"),
    ([{"name": "a", "sha256": "g" * 64}], r"tokens\[0\]: 'sha256'"),
    ([{"name": "a", "sha256": H1}, {"name": "b"}], r"tokens\[1\]: 'sha256'"),
    ([{"sha256": H1}], r"tokens\[0\]: 'name'"),
    ([{"name": "has space", "sha256": H1}], r"tokens\[0\]: 'name'"),
    ([{"name": "a", "sha256": H1, "read": ["Bad NS"]}], r"tokens\[0\]: 'read': namespace 'Bad NS'"),
    ([{"name": "a", "sha256": H1, "write": "a"}], r"tokens\[0\]: 'write' must be a list"),
    ([{"name": "a", "sha256": H1, "read": [1]}], r"tokens\[0\]: 'read' holds a int"),
    ([{"name": "a", "sha256": H1, "admin": "yes"}], r"tokens\[0\]: 'admin' must be true or false"),
    ([{"name": "a", "sha256": H1, "token": "secret"}], r"tokens\[0\]: unknown keys \['token'\]"),
    ([{"name": "a", "sha256": H1}, {"name": "a", "sha256": H2}], r"tokens\[1\]: duplicate name 'a'"),
    ([{"name": "a", "sha256": H1}, {"name": "b", "sha256": H1.upper()}], r"tokens\[1\]: same sha256"),
    (["alice"], r"tokens\[0\]: must be a mapping"),
])
def test_bad_entries_name_their_index(entries: list[object], pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern):
        parse_token_entries(yaml.safe_dump({"tokens": entries}), source="t.yaml")


@pytest.mark.parametrize("text", ["- a\n- b\n", "tokens: {}\n", "tokens: []\nextra: 1\n", "{bad json", "a: [\n"])
def test_bad_documents(text: str) -> None:
    with pytest.raises(ConfigError, match=r"t\.yaml"):
        parse_token_entries(text, source="t.yaml")


def test_missing_file_is_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        TokenStore.from_file(tmp_path / "nope.yaml")


def test_make_entry_validates() -> None:
    with pytest.raises(ConfigError, match="'write'"):
        make_entry("a", H1, write=["UPPER"])


# --- authentication ----------------------------------------------------------------------------------------------


def test_new_token_shape() -> None:
    token, digest = new_token()
    assert token.startswith("gm_")
    assert len(token) == 3 + 43
    assert digest == hash_token(token)
    assert len(digest) == 64
    assert new_token()[0] != token


@pytest.fixture
def alice_token() -> tuple[str, TokenStore]:
    token, digest = new_token()
    _, other = new_token()
    store = TokenStore([make_entry("bob", other, read=["bob"]),
                        make_entry("alice", digest, read=["alice-notes"], write=["alice"], shared=True)])
    return token, store


def test_right_token(alice_token: tuple[str, TokenStore]) -> None:
    token, store = alice_token
    principal = store.authenticate(f"Bearer {token}")
    assert principal == Principal("alice", frozenset({"alice-notes"}), frozenset({"alice"}), True, False, "shared")
    assert store.authenticate(f"bearer   {token} ").name == "alice"  # scheme is case-insensitive


@pytest.mark.parametrize("header", [None, "", "   "])
def test_missing_header(alice_token: tuple[str, TokenStore], header: str | None) -> None:
    with pytest.raises(UnauthenticatedError, match=r"^missing bearer token$"):
        alice_token[1].authenticate(header)


@pytest.mark.parametrize("header", ["Basic dXNlcjpwdw==", "Bearer", "Bearer a b", "gm_abc", "Token gm_abc"])
def test_malformed_header(alice_token: tuple[str, TokenStore], header: str) -> None:
    with pytest.raises(UnauthenticatedError, match="missing bearer token"):
        alice_token[1].authenticate(header)


@pytest.mark.parametrize("token", ["gm_wrong", "x" * 10_000])
def test_wrong_token(alice_token: tuple[str, TokenStore], token: str) -> None:
    with pytest.raises(UnauthenticatedError, match=r"^invalid token$"):
        alice_token[1].authenticate(f"Bearer {token}")


def test_hash_as_token_is_refused(alice_token: tuple[str, TokenStore]) -> None:
    token, store = alice_token
    with pytest.raises(UnauthenticatedError, match="invalid token"):
        store.authenticate(f"Bearer {hash_token(token)}")


def test_demo_mode(tmp_path: Path) -> None:
    token, digest = new_token()
    path = tmp_path / "tokens.yaml"
    add_token_entry(path, make_entry("alice", digest, write=["alice"]))
    settings = Settings(tokens_file=path, demo_mode=True, demo_namespaces=("demo", "demo-2"))
    store = TokenStore.from_settings(settings)
    demo = store.authenticate(None)
    assert demo.name == "demo"
    assert not demo.admin
    assert demo.shared
    assert demo.can_write("demo-2")
    assert demo.can_read("shared")
    assert not demo.can_write("shared")
    assert demo.readable(None, "shared") == ("demo", "demo-2", "shared")
    assert store.authenticate(f"Bearer {token}").name == "alice"  # a token still wins over demo
    with pytest.raises(UnauthenticatedError, match="invalid token"):
        store.authenticate("Bearer gm_wrong")  # a bad token is not downgraded to demo


def test_demo_mode_without_tokens() -> None:
    store = TokenStore.from_settings(Settings(demo_mode=True))
    assert store.authenticate(None).write == frozenset({"demo"})


def test_no_tokens_and_no_demo_fails_loudly() -> None:
    with pytest.raises(ConfigError, match="no API tokens configured"):
        TokenStore.from_settings(Settings())


def test_inline_tokens_env(monkeypatch: pytest.MonkeyPatch) -> None:
    token, digest = new_token()
    monkeypatch.setenv("GRAPHMEM_TOKENS", json.dumps({"tokens": [{"name": "ci", "sha256": digest, "admin": True}]}))
    monkeypatch.setenv("GRAPHMEM_SHARED_NAMESPACE", "common")
    store = TokenStore.from_settings(Settings())
    principal = store.authenticate(f"Bearer {token}")
    assert principal.admin
    assert principal.shared_namespace == "common"


def test_file_and_inline_names_must_not_clash(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    add_token_entry(path, make_entry("ci", H1, read=["a"]))
    with pytest.raises(ConfigError, match="duplicate name 'ci'"):
        TokenStore.from_settings(Settings(tokens_file=path, tokens=_yaml({"name": "ci", "sha256": H2})))


def test_bad_shared_namespace_setting() -> None:
    with pytest.raises(ConfigError, match="GRAPHMEM_SHARED_NAMESPACE"):
        TokenStore.from_settings(Settings(tokens=_yaml({"name": "a", "sha256": H1}), shared_namespace="Bad NS"))



# --- the CLI -----------------------------------------------------------------------------------------------------


def test_cli_token_create_then_authenticate(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "tokens.yaml"
    runner = CliRunner()
    result = runner.invoke(cli, ["token", "create", "--name", "alice", "--read", "a, b", "--write", "a",
                                 "--shared", "--file", str(path)])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert token.startswith("gm_")
    assert "\n" not in token
    assert token not in path.read_text()  # only the hash is stored
    result = runner.invoke(cli, ["token", "create", "--name", "root", "--admin", "--file", str(path)])
    assert result.exit_code == 0, result.output
    admin_token = result.stdout.strip()

    store = TokenStore.from_file(path)
    alice = store.authenticate(f"Bearer {token}")
    assert (alice.name, alice.read, alice.write, alice.shared, alice.admin) == (
        "alice", frozenset({"a", "b"}), frozenset({"a"}), True, False)
    assert store.authenticate(f"Bearer {admin_token}").admin


def test_cli_token_create_json_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    result = CliRunner().invoke(cli, ["token", "create", "--name", "a", "--write", "a", "--file", str(path)])
    assert result.exit_code == 0, result.output
    assert json.loads(path.read_text())["tokens"][0]["name"] == "a"


def test_cli_token_create_uses_settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env.yaml"
    monkeypatch.setenv("GRAPHMEM_TOKENS_FILE", str(path))
    result = CliRunner().invoke(cli, ["token", "create", "--name", "a", "--read", "a"])
    assert result.exit_code == 0, result.output
    assert TokenStore.from_file(path).authenticate(f"Bearer {result.stdout.strip()}").name == "a"


@pytest.mark.parametrize(("args", "message"), [
    (["--name", "a", "--read", "Bad NS"], "namespace 'Bad NS'"),
    (["--name", "a"], "at least one of"),
    (["--name", "dup", "--read", "a"], "[CONFLICT]: a token named 'dup' exists"),
])
def test_cli_token_create_errors(tmp_path: Path, args: list[str], message: str) -> None:
    path = tmp_path / "tokens.yaml"
    add_token_entry(path, make_entry("dup", H1, read=["a"]))
    before = path.read_text()
    result = CliRunner().invoke(cli, ["token", "create", *args, "--file", str(path)])
    assert result.exit_code != 0
    assert message in result.output
    assert "gm_" not in result.stdout
    assert path.read_text() == before


def test_cli_token_create_needs_a_file() -> None:
    result = CliRunner().invoke(cli, ["token", "create", "--name", "a", "--read", "a"])
    assert result.exit_code == 2
    assert "GRAPHMEM_TOKENS_FILE" in result.output
