"""Every count or size option of the command line refuses a value that cannot work (a batch of 0 or -1, a page of
0, a port outside 0-65535) as one ``[USAGE]`` line, exit 2, before anything is read or written; and
``graphmem integrity new-key`` prints only a key GRAPHMEM_SIGNING_KEYS accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.cli import main
from graphmem.security.signing import parse_keys

pytestmark = pytest.mark.usefixtures("no_graphmem_env")


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "memories.jsonl"
    path.write_text('{"kind": "semantic", "content": "x"}\n', encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["0", "-1"])
@pytest.mark.parametrize(("command", "option"), [
    (["import", "jsonl", "{data}", "--namespace", "helperx-ns"], "--batch"),
    (["import", "locomo", "{data}"], "--batch"),
    (["import", "graphiti", "--uri", "bolt://127.0.0.1:1"], "--batch"),
    (["db", "reembed"], "--page"),
    (["db", "rebuild-graph", "--namespace", "helperx-ns"], "--page"),
    (["integrity", "resign"], "--page"),
])
def test_a_count_below_one_is_a_usage_error(command: list[str], option: str, value: str, data: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.replace("{data}", str(data)) for a in command] + [option, value]
    code, out, err = run_main(args, capsys)
    assert code == 2, err
    assert out == ""
    assert err.startswith(f"graphmem: error [USAGE]: Invalid value for '{option}': {value} is not in the range x>=1")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_serve_refuses_a_port_outside_the_range(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(["serve", "--port", port], capsys)
    assert code == 2
    assert err.startswith("graphmem: error [USAGE]: Invalid value for '--port'")


def test_new_key_prints_a_key_the_settings_accept(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["integrity", "new-key", "--id", "k2024.a_b-c"], capsys)
    assert code == 0
    assert [k.id for k in parse_keys(out.strip())] == ["k2024.a_b-c"]


@pytest.mark.parametrize("key_id", ["bad id:x", "a:b", "a,b", "x" * 33, "é"])
def test_new_key_refuses_an_id_the_settings_would_refuse(key_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["integrity", "new-key", "--id", key_id], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith(f"graphmem: error [USAGE]: Invalid value for --id: {key_id!r}: a key id is 1-32 of ")


def test_two_new_keys_of_one_day_have_ids_that_can_be_listed_together(capsys: pytest.CaptureFixture[str]) -> None:
    """The default id was k + today's date: a second key made the same day took the same id, and listing both (a
    rotation) failed "signing key id ... is listed twice"."""
    lines = []
    for _ in range(2):
        code, out, _ = run_main(["integrity", "new-key"], capsys)
        assert code == 0
        lines.append(out.strip())
    keys = parse_keys(",".join(lines))
    assert keys[0].id != keys[1].id
    assert all(re.fullmatch(r"k\d{8}-[0-9a-f]{6}", k.id) for k in keys), [k.id for k in keys]
