"""What benchmarks/load.py needs around its load loop: API replicas as processes, the operations, and figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from graphmem.neo4j_local.tools import free_port
from graphmem.security import make_entry, new_token

ROOT = Path(__file__).resolve().parents[1]
SEARCH = """query Search($q: String!, $ns: [String!]) {
  search(query: $q, namespaces: $ns, k: 10) { results { score memory { id } } }
}"""
WRITE = """mutation Write($memories: [MemoryInput!]!, $requestId: String) {
  writeMemories(memories: $memories, requestId: $requestId) { replayed items { id action } }
}"""
TOPICS = ["backup", "deploy", "invoice", "meeting", "holiday", "printer", "database", "release", "budget", "badge"]
PLACES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Oslo", "Quito", "Perth", "Tallinn"]


def sentence(i: int) -> str:
    """A distinct, searchable one-line fact (no two share their number)."""
    return (f"The {TOPICS[i % len(TOPICS)]} review number {i} for the {PLACES[(i // 7) % len(PLACES)]} office "
            f"is planned on day {i % 28 + 1}")


def question(i: int) -> str:
    return f"when is the {TOPICS[i % len(TOPICS)]} review for {PLACES[(i // 3) % len(PLACES)]}"


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


@dataclass
class Tally:
    """What one load phase saw."""

    clients: int
    seconds: float = 0.0
    admitted_ms: list[float] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    write_ms: list[float] = field(default_factory=list)
    refused: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    acknowledged: list[str] = field(default_factory=list)

    def record(self, kind: str, ms: float, code: str | None, written: list[str]) -> None:
        if code == "OVERLOADED":
            self.refused += 1
            return
        if code is not None:
            self.errors[code] = self.errors.get(code, 0) + 1
            return
        self.admitted_ms.append(ms)
        (self.search_ms if kind == "search" else self.write_ms).append(ms)
        self.acknowledged.extend(written)

    @classmethod
    def merged(cls, clients: int, parts: list[Tally]) -> Tally:
        """One tally of phases run side by side (client processes): their figures together, the longest time."""
        tally = cls(clients, seconds=max(p.seconds for p in parts))
        for part in parts:
            tally.admitted_ms += part.admitted_ms
            tally.search_ms += part.search_ms
            tally.write_ms += part.write_ms
            tally.refused += part.refused
            tally.acknowledged += part.acknowledged
            for code, n in part.errors.items():
                tally.errors[code] = tally.errors.get(code, 0) + n
        return tally

    def summary(self, cores: int) -> dict[str, Any]:
        total = len(self.admitted_ms) + self.refused + sum(self.errors.values())
        done = len(self.admitted_ms)

        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 1)

        return {
            "clients": self.clients, "seconds": round(self.seconds, 1), "requests": total, "admitted": done,
            "throughput_rps": round(done / self.seconds, 1) if self.seconds else 0.0,
            "throughput_rps_per_core": round(done / self.seconds / cores, 1) if self.seconds else 0.0,
            "p50_ms": rounded(percentile(self.admitted_ms, 50)), "p95_ms": rounded(percentile(self.admitted_ms, 95)),
            "p99_ms": rounded(percentile(self.admitted_ms, 99)),
            "search_p95_ms": rounded(percentile(self.search_ms, 95)),
            "write_p95_ms": rounded(percentile(self.write_ms, 95)),
            "refused_overloaded": self.refused, "refused_share": round(self.refused / total, 3) if total else 0.0,
            "errors": dict(self.errors), "acknowledged_writes": len(self.acknowledged),
        }


def first_code(body: dict[str, Any]) -> str | None:
    errors = body.get("errors") or []
    if not errors:
        return None
    return str(errors[0].get("extensions", {}).get("code", "NO_CODE"))


@dataclass
class Replicas:
    urls: list[str]
    token: str
    namespace: str
    limit: int
    """GRAPHMEM_API_MAX_IN_FLIGHT of each replica."""


@contextmanager
def replicas(count: int, neo4j_uri: str, namespace: str, log_dir: Path) -> Iterator[Replicas]:
    """``count`` `graphmem serve` processes on free ports, one Neo4j, one token (write ``namespace``)."""
    token, digest = new_token()
    tokens = json.dumps({"tokens": [make_entry("load", digest, write=[namespace]).to_dict()]})
    env = {**os.environ, "GRAPHMEM_NEO4J_URI": neo4j_uri, "GRAPHMEM_TOKENS": tokens, "GRAPHMEM_LOG_LEVEL": "WARNING",
           "GRAPHMEM_RATE_LIMIT_PER_S": "1000000", "GRAPHMEM_RATE_LIMIT_BURST": "1000000",
           "GRAPHMEM_REFLECTION_WORKER": "false"}
    # replicas on one machine split its cores (docs/deploy.md): the default two per core is per process
    limit = int(env.setdefault("GRAPHMEM_API_MAX_IN_FLIGHT", str(max(1, 2 * cores() // count))))
    env.pop("GRAPHMEM_TOKENS_FILE", None)
    log_dir.mkdir(parents=True, exist_ok=True)
    procs: list[subprocess.Popen[bytes]] = []
    urls: list[str] = []
    try:
        for i in range(count):
            port = free_port()
            log = (log_dir / f"replica-{i}.log").open("wb")
            command = [str(Path(sys.executable).parent / "graphmem"), "serve", "--port", str(port)]
            procs.append(subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT))
            urls.append(f"http://127.0.0.1:{port}")
            if i == 0:  # the first one applies the schema; the others then find it applied
                wait_ready(urls[0], procs[0], log_dir)
        for url, proc in zip(urls, procs, strict=True):
            wait_ready(url, proc, log_dir)
        yield Replicas(urls, token, namespace, limit)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def wait_ready(url: str, proc: subprocess.Popen[bytes], log_dir: Path, within_s: float = 240) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"replica {url} exited with {proc.returncode}; see {log_dir}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"replica {url} not ready after {within_s:.0f}s; see {log_dir}")


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
