"""What the benchmarks share around a measurement: a throwaway Neo4j, the CPU and memory its JVM and this process
use, the versions measured, and reports without this machine's paths.

``throwaway_neo4j`` starts a Neo4j on free ports in a temp folder and stops and removes it on the way out, also on
Ctrl-C, or on SIGTERM and SIGHUP once ``_exit_on_signal`` is their handler.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.neo4j_local import LocalNeo4j
from graphmem.neo4j_local.tools import free_port
from graphmem.store import Store
from graphmem.store.admin import wait_ready

# --- the throwaway server ---------------------------------------------------------------------------------


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through the finally blocks that stop the server


@contextlib.contextmanager
def throwaway_neo4j(base: Settings, *, heap: str = "1g", pagecache: str | None = None,
                    prefix: str = "graphmem-bench-") -> Iterator[tuple[Settings, LocalNeo4j]]:
    """A Neo4j on free ports in a temp folder, stopped and removed on the way out, whatever happens."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    bolt = free_port()
    update: dict[str, Any] = {
        "neo4j_home": home, "neo4j_bolt_port": bolt, "neo4j_http_port": free_port(),
        "neo4j_password": SecretStr(secrets.token_urlsafe(16)), "neo4j_heap": heap, "neo4j_auth": True,
        "neo4j_uri": f"bolt://127.0.0.1:{bolt}", "neo4j_timeout_s": 120.0,
    }
    if pagecache is not None:
        update["neo4j_pagecache"] = pagecache
    settings = base.model_copy(update=update)
    server = LocalNeo4j(settings)
    try:
        server.fetch()
        server.start(ready=lambda: wait_ready(settings))  # kills its JVM itself if it fails or is interrupted
        yield settings, server
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(home, ignore_errors=True)


def portable(value: Any, *, extra: dict[str, str] | None = None) -> Any:
    """``value`` (a report) with this machine's paths replaced by placeholders: the repository root by ``.``,
    the interpreter's prefix by ``<python>``, the home folder by ``~``, the temp folder by ``<tmp>``, and the
    ``extra`` ones given (path -> placeholder). Longest paths first, so a venv inside the repo stays ``.venv``."""
    places = {str(Path(__file__).resolve().parents[1]): ".", sys.base_prefix: "<python>",
              str(Path.home()): "~", tempfile.gettempdir(): "<tmp>", **(extra or {})}
    order = sorted(((k, v) for k, v in places.items() if k and k != "/"), key=lambda kv: -len(kv[0]))

    def scrub(x: Any) -> Any:
        if isinstance(x, str):
            for path, mark in order:
                x = x.replace(path, mark)
            return x
        if isinstance(x, dict):
            return {k: scrub(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [scrub(v) for v in x]
        return x

    return scrub(value)


def jvm_peak_rss_mib(server: LocalNeo4j | None) -> float | None:
    pid = server.read_pid() if server else None
    if pid is None:
        return None
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return round(int(match.group(1)) / 1024, 1) if match else None


def jvm_cpu_s(server: LocalNeo4j | None) -> float | None:
    """CPU seconds (user + system) the Neo4j JVM has used so far."""
    pid = server.read_pid() if server else None
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


JVM_THREADS = (("jit", re.compile(r"^C\d CompilerThre")), ("queries", re.compile(r"^neo4j\.BoltWork")),
               ("index_merges", re.compile(r"^Lucene Merge")), ("gc", re.compile(r"^(GC Thread|G1 )")))
"""Kinds of Neo4j JVM threads whose CPU a benchmark reports apart: the JIT compilers (a JVM that has not yet
compiled the code it runs spends much of its CPU here), the Bolt workers that run the statements, Lucene's index
merges and the garbage collector; ``other`` is the rest, threads that ended included. (/proc keeps the first 15
characters of a thread's name.)"""


def jvm_threads_cpu_s(server: LocalNeo4j | None) -> dict[str, float] | None:
    """CPU seconds (user + system) the Neo4j JVM has used so far, by kind of thread (``JVM_THREADS``)."""
    pid = server.read_pid() if server else None
    total = jvm_cpu_s(server)
    if pid is None or total is None:
        return None
    out = dict.fromkeys([kind for kind, _ in JVM_THREADS], 0.0)
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat.rsplit(")", 1)[1].split()
        kind = next((k for k, pattern in JVM_THREADS if pattern.match(name)), None)
        if kind is not None:
            out[kind] += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    out["other"] = total - sum(out.values())
    return out


def cpu_spent(before: dict[str, float] | None, after: dict[str, float] | None) -> dict[str, float] | None:
    """Per kind, the CPU seconds between two ``jvm_threads_cpu_s`` readings."""
    if before is None or after is None:
        return None
    return {kind: round(after[kind] - before.get(kind, 0.0), 2) for kind in after}


def process_cpu_s() -> float:
    """CPU seconds (user + system, all threads) this process has used so far."""
    times = os.times()
    return times.user + times.system


# --- versions ---------------------------------------------------------------------------------------------


async def neo4j_server_version(store: Store) -> str:
    records, _, _ = await store.driver.execute_query(
        "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS version, edition",
        database_="system",
    )
    return ", ".join(f"{r['name']} {r['version']} {r['edition']}" for r in records)


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
