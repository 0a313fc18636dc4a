"""``graphmem token list`` and ``revoke``, and the demo token of ``graphmem serve --demo-token``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from graphmem.cli import cli
from graphmem.cli.serve import DEMO_TOKEN_NAME, with_demo_token
from graphmem.config import Settings
from graphmem.errors import ConfigError, UnauthenticatedError
from graphmem.security import TokenStore, add_token_entry, make_entry, new_token

H1 = "a" * 64


pytestmark = pytest.mark.usefixtures("no_graphmem_env")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def create(path: Path, name: str, *rights: str) -> str:
    result = invoke("token", "create", "--name", name, *rights, "--file", str(path))
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


# --- list ---------------------------------------------------------------------------------------------------------


def test_list_shows_names_rights_and_hash_prefix_never_a_secret(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    alice = create(path, "alice", "--read", "a,b", "--write", "a", "--shared")
    root = create(path, "root", "--admin")
    result = invoke("token", "list", "--file", str(path))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SHA256", "SOURCE", "RIGHTS"]
    stored = {e["name"]: e["sha256"] for e in yaml.safe_load(path.read_text())["tokens"]}
    assert lines[1].split()[:3] == ["alice", stored["alice"][:12], str(path)]
    assert lines[1].endswith("read a,b; write a; shared")
    assert lines[2].split()[:3] == ["root", stored["root"][:12], str(path)]
    assert "admin" in lines[2]
    assert alice not in result.output
    assert root not in result.output
    assert stored["alice"] not in result.output  # only a prefix of the hash


def test_a_token_created_with_a_trust_authenticates_as_a_principal_of_that_trust(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    secret = create(path, "bot", "--write", "inbox", "--trust", "0.3")
    create(path, "alice", "--write", "a")
    [bot] = [e for e in yaml.safe_load(path.read_text())["tokens"] if e["name"] == "bot"]
    assert bot["trust"] == 0.3
    store = TokenStore.from_file(path)
    assert store.authenticate(f"Bearer {secret}").trust == 0.3
    listed = invoke("token", "list", "--file", str(path)).stdout.splitlines()
    assert listed[1].endswith("write inbox; trust 0.3")
    assert "trust" not in listed[2]  # a fully trusted token says nothing of it


@pytest.mark.parametrize("trust", ["1.5", "-0.1", "nan", "high"])
def test_a_trust_outside_0_to_1_is_refused_on_create(tmp_path: Path, trust: str) -> None:
    path = tmp_path / "tokens.yaml"
    result = invoke("token", "create", "--name", "bot", "--write", "a", "--trust", trust, "--file", str(path))
    assert result.exit_code in (1, 2)  # 2: click's range check; 1: the entry's own (nan passes click's)
    assert "trust" in result.output
    assert not path.exists()


@pytest.mark.parametrize("trust", [1.5, -0.1, float("nan"), True, "0.5", None])
def test_a_token_file_entry_with_a_bad_trust_is_refused(trust: object) -> None:
    with pytest.raises(ConfigError, match="'trust' must be a number from 0 to 1"):
        make_entry("bot", H1, write=["a"], trust=trust)  # type: ignore[arg-type]


def test_list_json_merges_the_file_and_inline_tokens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.json"
    create(path, "alice", "--write", "a")
    monkeypatch.setenv("GRAPHMEM_TOKENS_FILE", str(path))
    monkeypatch.setenv("GRAPHMEM_TOKENS", json.dumps({"tokens": [{"name": "ci", "sha256": H1, "read": ["x"]}]}))
    result = invoke("token", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["name"], r["source"]) for r in rows] == [("alice", str(path)), ("ci", "GRAPHMEM_TOKENS")]
    assert rows[1] == {"name": "ci", "read": ["x"], "write": [], "shared": False, "admin": False, "trust": 1.0,
                       "sha256_prefix": H1[:12], "source": "GRAPHMEM_TOKENS"}


def test_list_without_any_tokens_configured_is_an_error() -> None:
    result = invoke("token", "list")
    assert result.exit_code == 1
    assert result.stderr.startswith("graphmem: error [INVALID_CONFIG]: no tokens configured")


def test_list_of_a_missing_file_is_one_error_line(tmp_path: Path) -> None:
    result = invoke("token", "list", "--file", str(tmp_path / "none.yaml"))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"graphmem: error [INVALID_CONFIG]: tokens file {tmp_path / 'none.yaml'} "
                                          "does not exist (create it with `graphmem token create`)"]


# --- create -------------------------------------------------------------------------------------------------------


def test_create_of_a_name_in_the_file_is_a_conflict_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    create(path, "alice", "--read", "a")
    create(path, "bob", "--read", "b")
    before = path.read_text()
    result = invoke("token", "create", "--name", "alice", "--write", "c", "--file", str(path))
    assert result.exit_code == 1
    assert result.stdout == ""  # no secret printed for a token that was not stored
    assert result.stderr.splitlines() == [f"graphmem: error [CONFLICT]: a token named 'alice' exists in {path}; "
                                          "revoke it first (graphmem token revoke alice) or pick another name"]
    assert path.read_text() == before


def test_create_of_a_name_defined_inline_is_a_conflict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.yaml"
    monkeypatch.setenv("GRAPHMEM_TOKENS_FILE", str(path))
    monkeypatch.setenv("GRAPHMEM_TOKENS", json.dumps({"tokens": [{"name": "ci", "sha256": "b" * 64}]}))
    result = invoke("token", "create", "--name", "ci", "--read", "a")
    assert result.exit_code == 1
    assert result.stderr.startswith("graphmem: error [CONFLICT]: a token named 'ci' exists in GRAPHMEM_TOKENS; "
                                    "remove it there or pick another name")
    assert not path.exists()


# --- revoke -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_revoke_removes_only_that_token(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"tokens{suffix}"
    alice = create(path, "alice", "--write", "a")
    bob = create(path, "bob", "--write", "b")
    result = invoke("token", "revoke", "alice", "--file", str(path))
    assert result.exit_code == 0, result.output
    assert "restart `graphmem serve`" in result.stderr
    store = TokenStore.from_file(path)
    assert [p.name for p in store.principals] == ["bob"]
    assert store.authenticate(f"Bearer {bob}").name == "bob"
    with pytest.raises(UnauthenticatedError):
        store.authenticate(f"Bearer {alice}")
    if suffix == ".json":
        assert json.loads(path.read_text())["tokens"][0]["name"] == "bob"
    else:
        assert path.read_text().startswith("# graphmem API tokens")
    assert not list(tmp_path.glob(".*.tmp"))


def test_revoke_of_an_unknown_name_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "tokens.yaml"
    add_token_entry(path, make_entry("alice", H1, read=["a"]))
    before = path.read_text()
    result = invoke("token", "revoke", "mallory", "--file", str(path))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"graphmem: error [NOT_FOUND]: no token named 'mallory' in {path} "
                                          "(graphmem token list shows them)"]
    assert path.read_text() == before


def test_revoke_of_an_inline_token_says_where_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tokens.yaml"
    add_token_entry(path, make_entry("alice", H1, read=["a"]))
    monkeypatch.setenv("GRAPHMEM_TOKENS_FILE", str(path))
    monkeypatch.setenv("GRAPHMEM_TOKENS", json.dumps({"tokens": [{"name": "ci", "sha256": "b" * 64}]}))
    result = invoke("token", "revoke", "ci")
    assert result.exit_code == 1
    assert "[INVALID_INPUT]: token 'ci' is defined in GRAPHMEM_TOKENS" in result.stderr


# --- serve --demo-token -------------------------------------------------------------------------------------------


def test_a_fresh_demo_token_is_printed_and_authenticates() -> None:
    settings, line = with_demo_token(Settings(), None)
    secret = line.rsplit(": ", 1)[1]
    assert secret.startswith("gm_")
    assert line.startswith("demo token (reads and writes demo, reads shared): ")
    assert secret not in (settings.tokens or "")  # only its hash
    principal = TokenStore.from_settings(settings).authenticate(f"Bearer {secret}")
    assert (principal.name, principal.write, principal.shared) == (DEMO_TOKEN_NAME, frozenset({"demo"}), True)


def test_the_demo_token_from_the_environment_is_kept_beside_inline_tokens() -> None:
    other, other_hash = new_token()
    inline = json.dumps({"tokens": [{"name": "ci", "sha256": other_hash, "read": ["x"]}]})
    settings, line = with_demo_token(Settings(tokens=inline), "a-long-demo-token-of-mine")
    assert "a-long-demo-token-of-mine" not in line
    assert line.endswith(": the value of GRAPHMEM_DEMO_TOKEN")
    store = TokenStore.from_settings(settings)
    assert store.authenticate("Bearer a-long-demo-token-of-mine").name == DEMO_TOKEN_NAME
    assert store.authenticate(f"Bearer {other}").name == "ci"


def test_a_short_demo_token_is_refused() -> None:
    with pytest.raises(ConfigError, match="at least 16 characters"):
        with_demo_token(Settings(), "short")
