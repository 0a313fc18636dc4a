from __future__ import annotations

import socket
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import JavaNotFoundError, LocalNeo4jError, MavenNotFoundError, PortInUseError
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import check_java, check_maven, parse_java_major, port_is_free, require_free_ports


@pytest.mark.parametrize(("text", "major"), [
    ('openjdk version "17.0.15" 2025-04-15', 17),
    ('java version "1.8.0_392"', 8),
    ('openjdk version "21" 2023-09-19', 21),
])
def test_parse_java_major(text: str, major: int) -> None:
    assert parse_java_major(text) == major


def test_unreadable_java_version() -> None:
    with pytest.raises(JavaNotFoundError):
        parse_java_major("command not found")


def test_no_java_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaNotFoundError, match="JDK 17"):
        check_java()


def test_old_java_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "bin" / "java"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho \'java version "1.8.0_392"\' >&2\n')
    fake.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(JavaNotFoundError, match="Java 8"):
        check_java()


def test_no_maven_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(MavenNotFoundError, match="mvn"):
        check_maven()


def test_port_in_use_is_detected() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        assert not port_is_free(port)
        with pytest.raises(PortInUseError, match=f"bolt port {port}"):
            require_free_ports({"bolt": port})


def test_start_without_jars_says_fetch(tmp_path: Path) -> None:
    server = LocalNeo4j(Settings(cache_dir=tmp_path))
    with pytest.raises(LocalNeo4jError, match="graphmem neo4j fetch"):
        server.start()


def test_config_file_binds_loopback_and_sets_auth(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path, neo4j_bolt_port=7999, neo4j_http_port=7998)
    conf = LocalNeo4j(settings, auth=False).write_config().read_text()
    assert "server.bolt.listen_address=127.0.0.1:7999" in conf
    assert "server.http.listen_address=127.0.0.1:7998" in conf
    assert "dbms.security.auth_enabled=false" in conf
    assert "internal.dbms.index.vector.standard_merge_factor=4" in conf
    assert "internal.dbms.index.vector.population_merge_factor=4" in conf
    cmd = LocalNeo4j(settings).command(Path("/usr/bin/java"))
    assert "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" in cmd
    assert "-Xmx1g" in cmd
    assert cmd[-4] == "org.neo4j.server.CommunityEntryPoint"
