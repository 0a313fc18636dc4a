"""The local Neo4j server: fetch the jars with Maven, write a config, run the JVM, wait, stop.

Route: ``org.neo4j.server.CommunityEntryPoint`` run directly with ``java -cp lib/*`` (what ``bin/neo4j console``
ends up running). The bootloader is not in the loop, so heap and the stock JVM flags are passed here.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graphmem.browser.links import BrowserLinks
from graphmem.config import NEO4J_VERSION, Settings
from graphmem.errors import (
    LocalNeo4jError,
    ServerStartError,
    ServerTimeoutError,
)
from graphmem.neo4j_local.tools import check_java, check_maven, require_free_ports

POM = Path(__file__).with_name("pom.xml")
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
# The JVM flags of the stock neo4j.conf (server.jvm.additional), which only the bootloader reads.
STOCK_JVM_FLAGS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
)
_COMPLETE = ".complete"
_PICKS_COLLECTOR = re.compile(r"-XX:\+Use\w+GC")


def jvm_flags(extra: str) -> list[str]:
    """The stock flags, then ``extra`` (GRAPHMEM_NEO4J_JVM_FLAGS): a collector it picks replaces the stock G1 (the
    JVM refuses to start with two)."""
    more = shlex.split(extra)
    picks = any(_PICKS_COLLECTOR.fullmatch(m) for m in more)
    stock = [f for f in STOCK_JVM_FLAGS if not (picks and f == "-XX:+UseG1GC")]
    return [*stock, *more]


@dataclass(frozen=True)
class FetchResult:
    lib_dir: Path
    cached: bool
    seconds: float
    jars: int
    bytes: int


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    http_url: str
    bolt_uri: str
    browser_url: str


def _dir_size(path: Path) -> tuple[int, int]:
    files = [p for p in path.glob("*.jar") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


class LocalNeo4j:
    """One local server, described by settings (ports, home, heap, password, auth)."""

    def __init__(self, settings: Settings, *, auth: bool | None = None) -> None:
        self.settings = settings
        self.auth = settings.neo4j_auth if auth is None else auth
        self.home = settings.neo4j_home_dir
        self.lib_dir = settings.neo4j_lib_dir

    # --- paths ----------------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        return self.home / "run" / "neo4j.pid"

    @property
    def console_log(self) -> Path:
        return self.home / "logs" / "console.log"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.settings.neo4j_http_port}"

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.settings.neo4j_bolt_port}"

    # --- fetch ----------------------------------------------------------------------------------
    def fetch(self, *, quiet: bool = True) -> FetchResult:
        """Download the server jars into the cache once; later calls return at once."""
        started = time.monotonic()
        if (self.lib_dir / _COMPLETE).is_file():
            jars, size = _dir_size(self.lib_dir)
            return FetchResult(self.lib_dir, True, time.monotonic() - started, jars, size)
        mvn = check_maven()
        self.lib_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="lib-", dir=self.lib_dir.parent))
        cmd = [str(mvn), "-B", "-f", str(POM), "dependency:copy-dependencies",
               "-DincludeScope=runtime", f"-DoutputDirectory={staging}"]
        if quiet:
            cmd.insert(2, "-q")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
            raise LocalNeo4jError(f"mvn could not fetch Neo4j {NEO4J_VERSION} (exit {proc.returncode}):\n{tail}")
        (staging / _COMPLETE).write_text(NEO4J_VERSION + "\n")
        if self.lib_dir.exists():
            shutil.rmtree(self.lib_dir)
        staging.rename(self.lib_dir)  # atomic: a half-fetched folder is never taken for a complete one
        jars, size = _dir_size(self.lib_dir)
        return FetchResult(self.lib_dir, False, time.monotonic() - started, jars, size)

    # --- config ---------------------------------------------------------------------------------
    def write_config(self) -> Path:
        s = self.settings
        for sub in ("conf", "data", "logs", "run", "plugins", "import"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        conf = self.home / "conf" / "neo4j.conf"
        lines = [
            "# written by graphmem; edits are overwritten at the next start",
            "server.default_listen_address=127.0.0.1",
            "server.default_advertised_address=127.0.0.1",
            f"server.bolt.listen_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.bolt.advertised_address=127.0.0.1:{s.neo4j_bolt_port}",
            f"server.http.listen_address=127.0.0.1:{s.neo4j_http_port}",
            f"server.http.advertised_address=127.0.0.1:{s.neo4j_http_port}",
            "server.https.enabled=false",
            "server.bolt.tls_level=DISABLED",
            f"dbms.security.auth_enabled={'true' if self.auth else 'false'}",
            f"server.directories.data={self.home / 'data'}",
            f"server.directories.logs={self.home / 'logs'}",
            f"server.directories.run={self.home / 'run'}",
            f"server.directories.plugins={self.home / 'plugins'}",
            f"server.directories.import={self.home / 'import'}",
            f"server.memory.pagecache.size={s.neo4j_pagecache}",
            "dbms.usage_report.enabled=false",
            f"internal.dbms.index.vector.standard_merge_factor={s.neo4j_vector_merge_factor}",
            f"internal.dbms.index.vector.population_merge_factor={s.neo4j_vector_merge_factor}",
            "server.http_enabled_modules=TRANSACTIONAL_ENDPOINTS,UNMANAGED_EXTENSIONS,BROWSER,QUERY_API_ENDPOINTS",
        ]
        if s.browser_guide:  # Browser fetches graphmem's style and guide from the API after login
            lines += BrowserLinks.from_settings(s).neo4j_conf_lines()
        conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return conf

    def command(self, java: Path) -> list[str]:
        heap = self.settings.neo4j_heap
        return [
            str(java), f"-Xms{heap}", f"-Xmx{heap}", *jvm_flags(self.settings.neo4j_jvm_flags),
            "-cp", f"{self.home / 'plugins'}/*:{self.lib_dir}/*",
            ENTRY_POINT, f"--home-dir={self.home}", f"--config-dir={self.home / 'conf'}", "--console-mode",
        ]

    # --- process --------------------------------------------------------------------------------
    def read_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _alive(pid) else None

    def status(self) -> ServerStatus:
        pid = self.read_pid()
        return ServerStatus(pid is not None, pid, self.http_url, self.bolt_uri, f"{self.http_url}/browser/")

    def start(self, *, ready: Callable[[], None] | None = None) -> ServerStatus:
        """Start the server and wait until HTTP answers and ``ready`` (a Bolt check) passes."""
        existing = self.read_pid()
        if existing is not None:
            raise LocalNeo4jError(f"a graphmem Neo4j is already running from {self.home} (pid {existing})")
        java = check_java()
        if not (self.lib_dir / _COMPLETE).is_file():
            raise LocalNeo4jError(f"Neo4j jars not fetched into {self.lib_dir}: run `graphmem neo4j fetch`")
        require_free_ports({"bolt": self.settings.neo4j_bolt_port, "http": self.settings.neo4j_http_port})
        self.write_config()
        if self.auth:
            self._set_initial_password(java)
        log = self.console_log.open("ab")
        proc = subprocess.Popen(
            self.command(java), cwd=self.home, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )
        log.close()
        self.pid_file.write_text(f"{proc.pid}\n")
        try:
            self._wait_ready(proc, ready)
        except BaseException:
            self._terminate(proc.pid, timeout=20)
            self.pid_file.unlink(missing_ok=True)
            raise
        return self.status()

    def _set_initial_password(self, java: Path) -> None:
        """neo4j-admin's set-initial-password, run as a class: takes effect only before the first start."""
        data = self.home / "data"
        if (data / "dbms" / "auth.ini").exists() or (data / "databases" / "system").exists():
            return
        cmd = [str(java), "-cp", f"{self.lib_dir}/*", "org.neo4j.server.startup.Neo4jAdminCommand",
               "dbms", "set-initial-password", "--", self.settings.neo4j_password.get_secret_value()]
        # "--": a password that starts with "-" (secrets.token_urlsafe gives one in 64) is not an option
        env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if proc.returncode != 0:
            raise ServerStartError("could not set the initial Neo4j password",
                                   log_tail="\n".join((proc.stdout + proc.stderr).splitlines()[-20:]))

    def _wait_ready(self, proc: subprocess.Popen[bytes], ready: Callable[[], None] | None) -> None:
        deadline = time.monotonic() + self.settings.neo4j_start_timeout_s
        http_ok = False
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise ServerStartError(f"Neo4j exited at start with code {proc.returncode}", log_tail=self.log_tail())
            if not http_ok:
                try:
                    with urllib.request.urlopen(self.http_url + "/", timeout=2) as resp:  # noqa: S310
                        http_ok = resp.status == 200
                except (urllib.error.URLError, OSError) as exc:
                    last_error = exc
            if http_ok:
                if ready is None:
                    return
                try:
                    ready()
                    return
                except Exception as exc:  # noqa: BLE001 - retried until the deadline
                    last_error = exc
            time.sleep(0.25)
        raise ServerTimeoutError(
            f"Neo4j not ready after {self.settings.neo4j_start_timeout_s:.0f}s (last error: {last_error})\n"
            + self.log_tail()
        )

    def stop(self, timeout: float = 60.0) -> bool:
        """Stop the server; True when one was running. Never leaves an orphan JVM behind."""
        pid = self.read_pid()
        self.pid_file.unlink(missing_ok=True)
        if pid is None:
            return False
        self._terminate(pid, timeout)
        return True

    @staticmethod
    def _terminate(pid: int, timeout: float) -> None:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.2)
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            return
        while _alive(pid):
            time.sleep(0.1)

    def log_tail(self, lines: int = 40) -> str:
        chunks = []
        for path in (self.console_log, self.home / "logs" / "neo4j.log", self.home / "logs" / "debug.log"):
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
                chunks.append(f"[{path.name}]\n" + "\n".join(text))
        return "\n".join(chunks)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child is not alive for our purposes.
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return waited == 0
