"""Checks for the external tools the local server needs: Java 17+ and Maven."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

from graphmem.errors import JavaNotFoundError, MavenNotFoundError, PortInUseError

MIN_JAVA = 17


def java_executable() -> Path:
    """The ``java`` to run: ``$JAVA_HOME/bin/java`` when set, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return Path(home) / "bin" / "java"
    found = shutil.which("java")
    if not found:
        raise JavaNotFoundError(f"java not found: install a JDK {MIN_JAVA}+ or set JAVA_HOME")
    return Path(found)


def parse_java_major(version_output: str) -> int:
    """Major version from ``java -version`` output (``"17.0.15"`` -> 17, ``"1.8.0_392"`` -> 8)."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not match:
        raise JavaNotFoundError(f"cannot read the java version from: {version_output.strip()[:200]!r}")
    major = int(match.group(1))
    if major == 1 and match.group(2):
        major = int(match.group(2))
    return major


def check_java() -> Path:
    java = java_executable()
    proc = subprocess.run([str(java), "-version"], capture_output=True, text=True, check=False)
    major = parse_java_major(proc.stderr + proc.stdout)
    if major < MIN_JAVA:
        raise JavaNotFoundError(f"{java} is Java {major}; Neo4j 5.26 needs Java {MIN_JAVA} or newer")
    return java


def check_maven() -> Path:
    found = shutil.which("mvn")
    if not found:
        raise MavenNotFoundError("mvn not found on PATH: install Maven 3.6+ to fetch the Neo4j jars")
    return Path(found)


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def require_free_ports(ports: dict[str, int]) -> None:
    taken = [f"{name} port {port}" for name, port in ports.items() if not port_is_free(port)]
    if taken:
        raise PortInUseError(f"already in use on 127.0.0.1: {', '.join(taken)}")


def free_port() -> int:
    """A port the OS says is free right now (for tests and throw-away servers)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
