"""GRAPHMEM_NEO4J_JVM_FLAGS: appended after the stock flags; a collector it picks replaces the stock G1."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.neo4j_local.manager import STOCK_JVM_FLAGS, LocalNeo4j, jvm_flags


def test_no_extra_flags_keep_the_stock_ones() -> None:
    assert jvm_flags("") == list(STOCK_JVM_FLAGS)
    assert "-XX:+UseG1GC" in jvm_flags("")


def test_extra_flags_come_last_and_keep_g1_unless_they_pick_a_collector() -> None:
    flags = jvm_flags("-Xlog:gc:file=gc.log -XX:MaxGCPauseMillis=20")
    assert flags[-2:] == ["-Xlog:gc:file=gc.log", "-XX:MaxGCPauseMillis=20"]
    assert flags.count("-XX:+UseG1GC") == 1


@pytest.mark.parametrize("collector", ["-XX:+UseZGC", "-XX:+UseParallelGC", "-XX:+UseShenandoahGC"])
def test_a_collector_replaces_g1(collector: str) -> None:
    flags = jvm_flags(f"{collector} -Xlog:gc")
    assert "-XX:+UseG1GC" not in flags
    assert flags[-2:] == [collector, "-Xlog:gc"]


def test_quoted_flags_stay_whole() -> None:
    assert jvm_flags('"-Dgraphmem.note=a b"')[-1] == "-Dgraphmem.note=a b"


def test_the_server_command_carries_them(tmp_path: Path) -> None:
    settings = Settings(neo4j_home=tmp_path, neo4j_jvm_flags="-XX:+UseParallelGC")
    command = LocalNeo4j(settings).command(Path("/usr/bin/java"))
    assert "-XX:+UseParallelGC" in command
    assert "-XX:+UseG1GC" not in command
    assert command.index("-XX:+UseParallelGC") < command.index("-cp")
