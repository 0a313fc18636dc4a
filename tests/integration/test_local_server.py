"""The local server manager, for real: Browser, stop detection, port conflicts, failing starts."""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import PortInUseError, ServerStartError, ServerTimeoutError, StoreUnavailableError
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.store import Store
from graphmem.store.admin import wait_ready


def throwaway(tmp_path: Path, base: Settings, **kw: object) -> Settings:
    bolt = free_port()
    return base.model_copy(update={
        "neo4j_home": tmp_path / "home", "neo4j_bolt_port": bolt, "neo4j_http_port": free_port(),
        "neo4j_uri": f"bolt://127.0.0.1:{bolt}", "neo4j_heap": "384m", "neo4j_pagecache": "64m", **kw,
    })


def jvm_running(home: Path) -> bool:
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "CommunityEntryPoint" in args and f"--home-dir={home}" in args:
            return True
    return False


def test_browser_is_served(neo4j_settings: Settings) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{neo4j_settings.neo4j_http_port}/browser/", timeout=10) as r:
        body = r.read().decode()
        assert r.status == 200
    assert "<title>Neo4j Browser</title>" in body


async def test_stopped_server_gives_a_clear_error(tmp_path: Path, neo4j_settings: Settings) -> None:
    settings = throwaway(tmp_path, neo4j_settings)
    server = LocalNeo4j(settings)
    server.fetch()
    status = server.start(ready=lambda: wait_ready(settings))
    try:
        assert status.running
        assert jvm_running(settings.neo4j_home_dir)
        async with Store.connect(settings) as store:
            assert await store.read("admin/ping") == [{"ok": 1}]
            # a second server on the same ports is refused before any JVM starts
            with pytest.raises(PortInUseError, match=str(settings.neo4j_bolt_port)):
                LocalNeo4j(settings.model_copy(update={"neo4j_home": tmp_path / "other"})).start()
            assert server.stop() is True
            assert not jvm_running(settings.neo4j_home_dir), "orphan JVM left behind"
            with pytest.raises(StoreUnavailableError, match=r"unavailable|failed|reachable"):
                await store.read("admin/ping")
    finally:
        server.stop()
    assert server.status().running is False
    with pytest.raises(StoreUnavailableError):
        async with Store.connect(settings):
            pass


def test_server_dying_at_start_shows_the_log(tmp_path: Path, neo4j_settings: Settings) -> None:
    settings = throwaway(tmp_path, neo4j_settings, neo4j_heap="1k")  # the JVM refuses a 1 KiB heap
    with pytest.raises(ServerStartError, match="exited at start") as info:
        LocalNeo4j(settings).start()
    assert "heap" in info.value.log_tail.lower()
    assert not jvm_running(settings.neo4j_home_dir)


def test_start_timeout_leaves_no_jvm(tmp_path: Path, neo4j_settings: Settings) -> None:
    settings = throwaway(tmp_path, neo4j_settings, neo4j_start_timeout_s=1.0)

    def never_ready() -> None:
        raise StoreUnavailableError("not yet")

    with pytest.raises(ServerTimeoutError, match="not ready after"):
        LocalNeo4j(settings).start(ready=never_ready)
    assert not jvm_running(settings.neo4j_home_dir)
    assert LocalNeo4j(settings).status().running is False
